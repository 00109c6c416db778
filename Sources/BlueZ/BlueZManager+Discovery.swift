import DBus

/// A claim on LE discovery: while any session for an adapter (or for all adapters) is open,
/// the manager keeps discovery running there. ``stop()`` (or releasing the object) gives the
/// claim back.
@MainActor
public final class BlueZDiscoverySession {
    /// The adapter (`hci0`), or `nil` for every adapter.
    public let adapter: String?
    private weak var manager: BlueZManager?
    /// Whether the claim is still held.
    public private(set) var isActive = true

    init(adapter: String?, manager: BlueZManager) {
        self.adapter = adapter
        self.manager = manager
    }

    /// Gives the claim back. Idempotent.
    public func stop() {
        guard isActive else { return }
        isActive = false
        manager?.releaseDiscovery(key: adapter ?? BlueZManager.allAdaptersKey)
    }

    isolated deinit {
        stop()
    }
}

/// Reference-counted discovery per adapter.
extension BlueZManager {
    static let allAdaptersKey = "*"

    /// Claims discovery on `adapter` (`hci0`), or on every adapter when `nil`. Discovery
    /// starts (or restarts after BlueZ or an adapter comes back) as soon as it can.
    public func startDiscovery(adapter: String? = nil) -> BlueZDiscoverySession {
        discoveryRequests[adapter ?? Self.allAdaptersKey, default: 0] += 1
        reconcileDiscovery()
        return BlueZDiscoverySession(adapter: adapter, manager: self)
    }

    func releaseDiscovery(key: String) {
        let count = (discoveryRequests[key] ?? 0) - 1
        discoveryRequests[key] = count > 0 ? count : nil
        reconcileDiscovery()
    }

    /// Whether discovery runs (or is starting) on the adapter at `adapterPath`.
    func isDiscovering(on adapterPath: String) -> Bool {
        discoveryActive.contains(adapterPath) || discoveryPending.contains(adapterPath)
    }

    /// The adapter paths that should be discovering.
    private var wantedDiscovery: Set<String> {
        let all = (discoveryRequests[Self.allAdaptersKey] ?? 0) > 0
        return Set(
            model.adapters.values.filter { all || (discoveryRequests[$0.name] ?? 0) > 0 }.map(\.path))
    }

    /// Starts or stops discovery per adapter to match the open sessions.
    func reconcileDiscovery() {
        guard state == .ready, connection != nil else { return }
        // Powering an adapter off ends every discovery session on it.
        for adapter in model.adapters.values where !adapter.powered { discoveryActive.remove(adapter.path) }
        let wanted = wantedDiscovery
        for adapter in model.adapters.values where !discoveryPending.contains(adapter.path) {
            let active = discoveryActive.contains(adapter.path)
            if wanted.contains(adapter.path) && !active && adapter.powered {
                beginDiscovery(adapter.path)
            } else if !wanted.contains(adapter.path) && active {
                endDiscovery(adapter.path)
            }
        }
    }

    private var discoveryFilter: DBusValue {
        var entries: [(String, DBusValue)] = [("Transport", .string("le")), ("DuplicateData", .bool(false))]
        if let rssi = settings.discoveryRSSI { entries.append(("RSSI", .int16(rssi))) }
        if !settings.discoveryUUIDs.isEmpty { entries.append(("UUIDs", .strings(settings.discoveryUUIDs))) }
        return .propertyDictionary(entries)
    }

    private func beginDiscovery(_ adapterPath: String) {
        discoveryPending.insert(adapterPath)
        let generation = loadGeneration
        // A fresh scan: only what shows up from now on (or is in range now) counts as seen.
        seenDevices = seenDevices.filter { model.devices[$0]?.adapterPath != adapterPath }
        for device in model.devices.values where device.adapterPath == adapterPath && device.rssi != nil {
            seenDevices.insert(device.path)
        }
        Task {
            var failure: DBusError?
            do throws(DBusError) {
                _ = try await call(
                    path: adapterPath, interface: BlueZNames.adapterInterface, member: "SetDiscoveryFilter",
                    body: [discoveryFilter])
                _ = try await call(path: adapterPath, interface: BlueZNames.adapterInterface, member: "StartDiscovery")
            } catch {
                failure = error
            }
            guard generation == loadGeneration else { return }
            discoveryPending.remove(adapterPath)
            if let failure, BlueZErrorKind(failure) != .inProgress {
                discoveryFailed(adapterPath, failure)
            } else {
                discoveryActive.insert(adapterPath)
                logger.info("discovery started on \(BlueZPath.adapterName(of: adapterPath) ?? adapterPath)")
            }
            reconcileDiscovery()
        }
    }

    private func discoveryFailed(_ adapterPath: String, _ error: DBusError) {
        let name = BlueZPath.adapterName(of: adapterPath) ?? adapterPath
        switch BlueZErrorKind(error) {
        case .notReady:
            // Retried when the adapter reports Powered=true.
            logger.warning("cannot discover on \(name): adapter not ready (\(error))")
            return
        case .accessDenied:
            logger.error("discovery on \(name) refused: \(error)")
        default:
            logger.warning("StartDiscovery on \(name) failed: \(error)")
        }
        guard discoveryRetry == nil else { return }
        discoveryRetry = scheduler.schedule(after: 2) { [weak self] in
            self?.discoveryRetry = nil
            self?.reconcileDiscovery()
        }
    }

    private func endDiscovery(_ adapterPath: String) {
        discoveryPending.insert(adapterPath)
        discoveryActive.remove(adapterPath)
        let generation = loadGeneration
        Task {
            do throws(DBusError) {
                _ = try await call(path: adapterPath, interface: BlueZNames.adapterInterface, member: "StopDiscovery")
            } catch {
                logger.debug("StopDiscovery on \(adapterPath): \(error)")
            }
            do throws(DBusError) {
                _ = try await call(
                    path: adapterPath, interface: BlueZNames.adapterInterface, member: "SetDiscoveryFilter",
                    body: [.propertyDictionary([])])
            } catch {
                logger.debug("clearing the discovery filter on \(adapterPath): \(error)")
            }
            guard generation == loadGeneration else { return }
            discoveryPending.remove(adapterPath)
            logger.info("discovery stopped on \(BlueZPath.adapterName(of: adapterPath) ?? adapterPath)")
            reconcileDiscovery()
        }
    }
}

import Adapters
import BoardKit
import BoardLink
import DBus
import FoundationEssentials

/// Setting a link up, and taking it down.
extension BlueZBoardTransport {
    /// Connect → ServicesResolved → characteristics → StartNotify → `.connected` → handshake.
    func establishLink(devicePath: String, isReconnect: Bool) async throws(BlueZLinkError) {
        try await waitForManager()
        guard let device = manager.device(at: devicePath) else { throw .deviceNotFound(devicePath) }
        guard !manager.isClaimed(address: device.address, byOtherThan: self) else {
            throw .deviceNotFound("\(device.address) is taken by another transport")
        }
        manager.claim(address: device.address, by: self)
        guard let adapter = manager.model.adapters[device.adapterPath] else { throw .noAdapter(device.adapterName) }
        guard adapter.powered else { throw .adapterPoweredOff(adapter.name) }
        var options = adapterOptions
        if options.advertisedName == nil { options.advertisedName = device.advertisedName }
        let profile = AdapterFactory.profile(for: family, advertisedName: options.advertisedName)
        if let previous = link { teardown(previous, disconnectDevice: false) }
        let link = BlueZLink(device: device, profile: profile, options: options)
        self.link = link
        lastDevicePath = devicePath
        lastDeviceAddress = device.address
        lastDeviceName = device.advertisedName ?? device.address
        manager.noteLinkStarted(onAdapter: link.adapterPath)
        publishStatus()
        logger.info("connecting to \(device.advertisedName ?? "?") \(device.address) on \(link.adapterName)")
        do throws(BlueZLinkError) {
            try await connectDevice(link)
            try await waitForServices(link)
            try await findCharacteristics(link)
            let boardAdapter: any BoardAdapter
            do {
                boardAdapter = try AdapterFactory.makeAdapter(for: family, options: options)
            } catch {
                throw .adapterOptions(error.description)
            }
            link.adapter = boardAdapter
            try await subscribe(link)
            resolveAuxiliary(link)
            await subscribeAuxiliary(link)
            link.writer = makeWriter(for: link, adapter: boardAdapter)
            try link.check()
            guard self.link === link else { throw .cancelled }
            goUp(link, isReconnect: isReconnect)
        } catch {
            teardown(link, disconnectDevice: link.connectIssued && error != .deviceNotFound(link.address))
            throw error
        }
    }

    func waitForManager() async throws(BlueZLinkError) {
        do throws(BlueZLinkError) {
            try await waiter.wait(timeout: settings.connectTimeout, what: "BlueZ") {
                [manager] () -> Result<Void, BlueZLinkError>? in
                switch manager.state {
                case .ready: .success(())
                case .unauthorized(let detail): .failure(.notAuthorized(detail))
                default: nil
                }
            }
        } catch .timeout {
            throw manager.state == .waitingForBlueZ || manager.state == .loading ? .bluezUnavailable : .busUnavailable
        }
    }

    /// `Device1.Connect` with the per-adapter slot, retrying transient failures.
    private func connectDevice(_ link: BlueZLink) async throws(BlueZLinkError) {
        var retries = 0
        // The one backoff type: the transient retries are a short policy of their own.
        let transient = BoardReconnectPolicy(
            maxAttempts: settings.transientRetryDelays.count, delays: settings.transientRetryDelays)
        while true {
            try link.check()
            if manager.device(at: link.devicePath)?.connected == true {
                link.armed = true
                logger.debug("already connected at the BlueZ level; Connect skipped")
                return
            }
            guard await manager.acquireConnectSlot(adapterPath: link.adapterPath) else { throw .cancelled }
            link.connectIssued = true
            var failure: DBusError?
            do throws(DBusError) {
                _ = try await manager.call(
                    path: link.devicePath, interface: BlueZNames.deviceInterface, member: "Connect",
                    timeout: settings.connectTimeout)
            } catch {
                failure = error
            }
            manager.releaseConnectSlot(adapterPath: link.adapterPath)
            if Task.isCancelled { throw .cancelled }
            guard let failure else {
                link.armed = true
                return
            }
            let kind = BlueZErrorKind(failure)
            if kind.isTransientConnectFailure, let delay = transient.nextDelay(attempt: retries + 1) {
                retries += 1
                logger.warning(
                    "Connect to \(link.address) failed (\(failure)); retry \(retries)/\(settings.transientRetryDelays.count) in \(delay) s"
                )
                guard await manager.scheduler.sleep(delay) else { throw .cancelled }
                link.failure = nil
                continue
            }
            switch kind {
            case .cancelled: throw .cancelled
            case .objectGone: throw .deviceNotFound(link.address)
            case .timeout: throw .timeout("Connect to \(link.address)")
            case .notReady: throw .adapterPoweredOff(link.adapterName)
            case .serviceGone: throw .bluezUnavailable
            case .accessDenied: throw .notAuthorized(failure.description)
            default: throw .connectFailed(address: link.address, error: failure)
            }
        }
    }

    private func waitForServices(_ link: BlueZLink) async throws(BlueZLinkError) {
        try await waiter.wait(timeout: settings.servicesTimeout, what: "ServicesResolved of \(link.address)") {
            [manager] () -> Result<Void, BlueZLinkError>? in
            if let failure = link.failure { return .failure(failure) }
            guard let device = manager.device(at: link.devicePath) else {
                return .failure(.linkLost("BlueZ removed the device while connecting"))
            }
            return device.servicesResolved ? .success(()) : nil
        }
    }

    /// Finds the profile's characteristics, waiting briefly for objects exported after
    /// `ServicesResolved` (bluez #1489).
    private func findCharacteristics(_ link: BlueZLink) async throws(BlueZLinkError) {
        let grace = min(3, settings.servicesTimeout)
        var missing = link.profile.writeCharacteristicUUID
        do throws(BlueZLinkError) {
            try await waiter.wait(timeout: grace, what: "GATT characteristics") {
                [weak self] () -> Result<Void, BlueZLinkError>? in
                if let failure = link.failure { return .failure(failure) }
                guard let self else { return .failure(.cancelled) }
                switch self.resolveCharacteristics(link) {
                case .none: return .success(())
                case .some(let uuid):
                    missing = uuid
                    return nil
                }
            }
        } catch .timeout {
            throw .missingCharacteristic(missing)
        }
        let found = link.notifyPaths.count
        let wanted = Set(link.profile.notifyCharacteristicUUIDs).count
        if found < wanted {
            logger.warning("only \(found) of \(wanted) notify characteristics found; continuing")
        }
    }

    /// Fills the link's paths from the model; returns the first missing UUID, or `nil`.
    func resolveCharacteristics(_ link: BlueZLink) -> String? {
        let profile = link.profile
        let serviceUUIDs = Set(
            [profile.serviceUUID.lowercased()] + profile.additionalServices.keys.map { $0.lowercased() })
        let services = manager.model.services(ofDevice: link.devicePath)
        let preferred = services.filter { serviceUUIDs.contains($0.uuid) }
        var candidates = preferred.flatMap { manager.model.characteristics(ofService: $0.path) }
        // Fall back to every service (the Square Off Neo's extra characteristics' service is unknown).
        candidates += manager.model.characteristics(ofDevice: link.devicePath).filter { other in
            !candidates.contains { $0.path == other.path }
        }
        func find(_ uuid: String) -> BlueZCharacteristicInfo? {
            candidates.first { $0.uuid == uuid.lowercased() }
        }
        guard let write = find(profile.writeCharacteristicUUID) else { return profile.writeCharacteristicUUID }
        let notify = profile.notifyCharacteristicUUIDs.compactMap(find)
        guard !notify.isEmpty else { return profile.notifyCharacteristicUUIDs.first ?? profile.writeCharacteristicUUID }
        link.writePath = write.path
        link.mtu = write.mtu
        link.notifyPaths = Set(notify.map(\.path))
        link.gattPaths = Set(([write] + notify).map(\.servicePath))
        manager.route(link.notifyPaths, to: self)
        return nil
    }

    /// Subscribes to each notify characteristic: `AcquireNotify` where BlueZ offers it and the
    /// settings allow it, else (or when BlueZ refuses it) `StartNotify` (`InProgress` retried
    /// briefly).
    private func subscribe(_ link: BlueZLink) async throws(BlueZLinkError) {
        for path in link.notifyPaths.sorted() {
            if settings.notifyMethod == .acquireNotify, manager.model.characteristics[path]?.notifyAcquired != nil {
                if try await acquireNotify(path, on: link) { continue }
            }
            var tries = 0
            while true {
                try link.check()
                do throws(DBusError) {
                    _ = try await manager.call(
                        path: path, interface: BlueZNames.characteristicInterface, member: "StartNotify")
                    break
                } catch {
                    let kind = BlueZErrorKind(error)
                    if kind == .cancelled { throw .cancelled }
                    if kind == .inProgress && tries < 40 {
                        tries += 1
                        guard await manager.scheduler.sleep(0.05) else { throw .cancelled }
                        continue
                    }
                    let uuid = manager.model.characteristics[path]?.uuid ?? path
                    throw .notifyFailed(uuid: uuid, error: error)
                }
            }
        }
    }

    /// `AcquireNotify` on the characteristic at `path`; `false` when BlueZ refuses it in a way
    /// that `StartNotify` may still serve (the caller falls back).
    private func acquireNotify(_ path: String, on link: BlueZLink) async throws(BlueZLinkError) -> Bool {
        try link.check()
        let reply: [DBusValue]
        do throws(DBusError) {
            reply = try await manager.call(
                path: path, interface: BlueZNames.characteristicInterface, member: "AcquireNotify",
                body: [.propertyDictionary([:])])
        } catch {
            switch BlueZErrorKind(error) {
            case .cancelled: throw .cancelled
            case .notConnected, .objectGone, .serviceGone, .timeout:
                let uuid = manager.model.characteristics[path]?.uuid ?? path
                throw .notifyFailed(uuid: uuid, error: error)
            default:
                logger.info("AcquireNotify on \(path) refused (\(error)); using StartNotify")
                return false
            }
        }
        guard reply.count >= 1, let descriptor = reply[0].unixFDValue, descriptor >= 0 else {
            logger.warning("AcquireNotify on \(path) replied '\(DBusValue.signature(of: reply))'; using StartNotify")
            return false
        }
        if reply.count >= 2, let mtu = reply[1].uint16Value, link.mtu == nil { link.mtu = Int(mtu) }
        // The link is captured strongly: the cycle link → socket → closure → link ends when
        // the socket leaves `notifySockets` (teardown, or its own end of file). The link
        // stays alive while one of its datagrams is handled even if an event handler tears
        // it down, and reading it costs no unowned or weak load (a per-notification cost on
        // an object with a side table). A socket is open only while its link is the
        // transport's current link (teardown closes it; `!isTornDown` is that check without
        // touching the transport), so the common case — an adapter that yields nothing —
        // never loads the transport. Unowned: the transport tears its link down (closing the
        // socket) before it goes.
        let socket = BlueZNotifySocket(
            descriptor: descriptor,
            onDatagram: { [unowned self, link] bytes in
                guard !link.isTornDown else { return }
                let events = link.receive(bytes)
                if !events.isEmpty { self.deliver(events) }
            },
            onClose: { [weak self, weak link] reason in
                guard let self, let link else { return }
                link.notifySockets[path] = nil
                self.linkLost(link, reason: "the notification socket of \(path) was \(reason)")
            })
        guard self.link === link, !link.isTornDown else {
            socket.close()
            throw .cancelled
        }
        link.notifySockets[path] = socket
        return true
    }

    private func makeWriter(for link: BlueZLink, adapter: any BoardAdapter) -> PacedWriter {
        let chunk = settings.maximumWriteLength ?? max(20, (link.mtu ?? 23) - 3)
        let writePath = link.writePath ?? ""
        let type = link.profile.writeType.rawValue
        let timeout = settings.writeTimeout
        let writer = PacedWriter(
            minimumInterval: adapter.minimumWriteInterval, maximumChunkLength: chunk, scheduler: manager.scheduler,
            logger: logger
        ) { [weak self] data, completion in
            guard let self else {
                completion(.failed("transport released"))
                return
            }
            // No task per write: the reply completes the write from the dispatch that reads it.
            self.manager.call(
                path: writePath, interface: BlueZNames.characteristicInterface, member: "WriteValue",
                body: [.bytes(data), .propertyDictionary(["type": .string(type)])], timeout: timeout
            ) { result in
                switch result {
                case .success: completion(.success)
                case .failure(let error): completion(Self.writeResult(for: error))
                }
            }
        }
        writer.onLinkLost = { [weak self, weak link] reason in
            guard let self, let link else { return }
            self.linkLost(link, reason: reason)
        }
        return writer
    }

    static func writeResult(for error: DBusError) -> LinkWriteResult {
        switch BlueZErrorKind(error) {
        case .inProgress: .retry(error.description)
        case .notConnected, .objectGone, .serviceGone: .linkLost("write failed: \(error)")
        default: .failed(error.description)
        }
    }

    /// The link is usable: `.connected`, early notifications, the handshake.
    private func goUp(_ link: BlueZLink, isReconnect: Bool) {
        link.isUp = true
        hasBeenConnected = true
        reconnectAttempt = nil
        reconnectDelay = nil
        connectedDeviceName = link.name ?? link.address
        activity = .connected
        seekScan?.stop()
        seekScan = nil
        logger.info("connected to \(connectedDeviceName ?? link.address) on \(link.adapterName)")
        updateState()
        yield(.connected)
        let early = link.early
        link.early = []
        for bytes in early { deliver(link.feed(bytes)) }
        guard let adapter = link.adapter, let writer = link.writer else { return }
        var carried: TimeInterval = 0
        var duration: TimeInterval = 0
        for step in adapter.handshakeCommands(isReconnect: isReconnect) {
            duration += step.delayBefore + adapter.minimumWriteInterval
            guard let bytes = adapter.encode(step.command) else {
                carried += step.delayBefore
                continue
            }
            writer.enqueue(bytes, delayBefore: carried + step.delayBefore)
            carried = 0
        }
        armHandshakeTimer(link, after: duration + settings.handshakeTimeout)
    }

    /// Reports `.handshakeFailed` on `link` unless the board answers its handshake within
    /// `limit` seconds of the link coming up (a board that never answers looked connected
    /// and healthy forever). The notifications waiting in the link's sockets are taken in
    /// first: an answer that reached the kernel while the loop was busy elsewhere is the
    /// board's answer, not its silence.
    private func armHandshakeTimer(_ link: BlueZLink, after limit: TimeInterval) {
        guard !link.handshakeAnswered else { return }
        link.handshakeTimer = manager.scheduler.schedule(after: limit) { [weak self, weak link] in
            guard let self, let link, self.link === link, link.isUp, !link.handshakeAnswered else { return }
            self.takeWaitingInput()
            guard self.link === link, link.isUp, !link.handshakeAnswered else { return }
            link.handshakeAnswered = true
            link.handshakeTimer = nil
            let reason = "no answer to the handshake after \(Int(limit.rounded(.up))) s"
            self.logger.warning("\(link.address): \(reason)")
            self.deliver([.handshakeFailed(reason: reason)])
        }
    }

    /// Stops the link's writer and bookkeeping; optionally sends `Disconnect` (not awaited).
    func teardown(_ link: BlueZLink, disconnectDevice: Bool) {
        guard !link.isTornDown else { return }
        link.isTornDown = true
        link.isUp = false
        if link.failure == nil { link.failure = .cancelled }
        link.handshakeTimer?.cancel()
        link.handshakeTimer = nil
        link.writer?.stop()
        for socket in link.notifySockets.values { socket.close() }
        link.notifySockets = [:]
        manager.unroute(link.notifyPaths.union(link.auxiliaryPaths.keys), of: self)
        manager.noteLinkEnded(onAdapter: link.adapterPath)
        if self.link === link { self.link = nil }
        waiter.evaluate()
        guard disconnectDevice else { return }
        let manager = self.manager
        let logger = self.logger
        pendingDisconnect = Task { @MainActor in
            do throws(DBusError) {
                _ = try await manager.call(
                    path: link.devicePath, interface: BlueZNames.deviceInterface, member: "Disconnect", timeout: 5)
            } catch {
                logger.debug("Disconnect of \(link.address): \(error)")
            }
        }
    }
}

import BoardKit
import FoundationEssentials

/// What the manager reports: notifications, link changes, BlueZ coming and going.
extension BlueZBoardTransport: BlueZManagerClient {
    func manager(_ manager: BlueZManager, didApply changes: [BlueZModelChange]) {
        // Every transport hears every change: one that concerns none of its devices costs it
        // a look at each change, not a search of every device BlueZ knows (a hall starting
        // up sees a change for every advertisement of every board).
        guard changes.contains(where: concerns) else { return }
        for change in changes {
            guard let link else { break }
            handle(change, for: link)
        }
        waiter.evaluate()
        refreshDiscovered()
        updateState()
    }

    /// Whether `change` can matter to this transport: an adapter's, its own device's (its
    /// link, the last one it had), and while it looks for its board (a scan of its own or a
    /// search for its board) a device it could take or has listed as discovered.
    func concerns(_ change: BlueZModelChange) -> Bool {
        guard let path = change.devicePath else { return true }
        if path == link?.devicePath || path == lastDevicePath { return true }
        guard manualScan != nil || seekScan != nil else { return false }
        if discovered.contains(where: { $0.token == path }) { return true }
        guard let device = manager.device(at: path) else { return false }
        if let adapterName, device.adapterName != adapterName { return false }
        return device.address == lastDeviceAddress?.uppercased() || match.matches(device, family: family)
    }

    func manager(_ manager: BlueZManager, lostBlueZ reason: String) {
        if let link { linkLost(link, reason: reason) }
        waiter.evaluate()
        refreshDiscovered()
        updateState()
    }

    func managerStateDidChange(_ manager: BlueZManager) {
        waiter.evaluate()
        updateState()
    }

    func manager(_ manager: BlueZManager, didReceiveValue bytes: Data, from path: String) {
        guard let link else { return }
        guard link.notifyPaths.contains(path) else {
            receiveAuxiliary(bytes, path: path, on: link, isSignal: true)
            return
        }
        receive(bytes, on: link)
    }

    /// One routed `Value` change of `link` (`AcquireNotify` datagrams take the same path
    /// through ``BlueZLink/receive(_:)`` in the socket's handler).
    func receive(_ bytes: Data, on link: BlueZLink) {
        let events = link.receive(bytes)
        if !events.isEmpty { deliver(events) }
    }

    private func handle(_ change: BlueZModelChange, for link: BlueZLink) {
        switch change {
        case .value(let path, let bytes):
            guard link.notifyPaths.contains(path) else {
                receiveAuxiliary(bytes, path: path, on: link, isSignal: true)
                return
            }
            receive(bytes, on: link)
        case .deviceChanged(let path, let keys) where path == link.devicePath:
            let device = manager.device(at: path)
            if keys.contains("Connected") && device?.connected == false && link.armed {
                linkLost(link, reason: "the board disconnected")
            } else if keys.contains("ServicesResolved") && device?.servicesResolved == false && link.isUp {
                linkLost(link, reason: "the board's services are no longer resolved")
            }
        case .deviceRemoved(let path) where path == link.devicePath:
            linkLost(link, reason: "BlueZ removed the device")
        case .gattRemoved(let path, let devicePath) where devicePath == link.devicePath:
            if link.isUp && (link.notifyPaths.contains(path) || path == link.writePath || link.gattPaths.contains(path))
            {
                linkLost(link, reason: "the board's GATT object \(path) was removed")
            }
        case .adapterRemoved(let path) where path == link.adapterPath:
            linkLost(link, reason: "adapter \(link.adapterName) was removed")
        case .adapterChanged(let path) where path == link.adapterPath:
            if manager.model.adapters[path]?.powered == false {
                linkLost(link, reason: "adapter \(link.adapterName) was powered off")
            }
        default:
            break
        }
    }

    /// Hands the events of one notification on: to the handler at once when nothing queued
    /// earlier waits (the order holds), else queued behind it.
    func deliver(_ events: [BoardEvent]) {
        if let eventHandler, pendingEvents.isEmpty {
            // The adapter and the writer are done with this notification: hand its events
            // over right away (nothing queued earlier is waiting, so the order holds).
            for event in events { eventHandler(event) }
        } else {
            for event in events { yield(event) }
        }
    }

    /// An unexpected end of `link`. While it is being set up, the set-up fails; once it is up,
    /// `.disconnected(error:)` is yielded and the reconnect policy starts.
    func linkLost(_ link: BlueZLink, reason: String) {
        guard self.link === link, !link.isTornDown else { return }
        guard link.isUp else {
            if link.failure == nil { link.failure = .linkLost(reason) }
            waiter.evaluate()
            return
        }
        let stillConnected = manager.device(at: link.devicePath)?.connected == true
        teardown(link, disconnectDevice: stillConnected)
        connectedDeviceName = nil
        lastError = reason
        logger.warning("link lost: \(reason)")
        yield(.disconnected(error: reason))
        restart(.reconnecting(attempt: 1)) { transport, id in
            await transport.runReconnect(id: id)
        }
    }
}

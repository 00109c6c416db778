import DBus

/// The LE connection state machine of `Device1` (§3.3): `Connect` with injectable outcomes,
/// one LE connect per adapter, `Disconnect` in BlueZ's signal order, remote drops.
extension FakeDevice {
    func connect(_ invocation: DBusMethodInvocation) {
        guard adapter.isPowered else { return invocation.fail(BlueZErrors.notReady) }
        switch state {
        case .connecting, .disconnecting: return invocation.fail(BlueZErrors.inProgress)
        case .connected: return invocation.reply()
        case .disconnected: break
        }
        if let other = adapter.connectingDevice, other !== self { return invocation.fail(BlueZErrors.busy) }
        markPermanent()
        let outcome = board.takeConnectOutcome()
        if let error = outcome.immediateError {
            sim.log("\(board.address) connect refused: \(error)")
            return invocation.fail(error)
        }
        state = .connecting
        pendingConnect = invocation
        adapter.connectingDevice = self
        let delay = outcome == .timeout ? sim.behavior.connectTimeout : sim.behavior.connectDelay
        connectTask = schedule(after: delay) { [weak self] in self?.finishConnect(outcome) }
    }

    /// The connect attempt ends as `outcome` decided.
    private func finishConnect(_ outcome: ConnectOutcome) {
        guard state == .connecting, let invocation = pendingConnect else { return }
        pendingConnect = nil
        connectTask = nil
        if adapter.connectingDevice === self { adapter.connectingDevice = nil }
        let abortError = sim.version.atLeast(62) ? BlueZErrors.abortByLocal : BlueZErrors.softwareAbort
        switch outcome {
        case .success where board.isPresent:
            linkUp(invocation)
        case .abort, .oldAbort:
            // The link came up for a moment: Connected=true, the error, Connected=false.
            state = .disconnected
            set("Connected", .bool(true))
            invocation.fail(outcome == .oldAbort ? BlueZErrors.softwareAbort : abortError)
            set("Connected", .bool(false))
            sim.log("\(board.address) connect aborted")
        case .canceled:
            state = .disconnected
            invocation.fail(BlueZErrors.connectionCanceled)
            sim.log("\(board.address) connect canceled")
        case .success, .timeout, .inProgress, .already, .ioError:
            state = .disconnected
            invocation.fail(abortError)
            sim.log("\(board.address) connect timed out")
        }
    }

    /// Link up: `Connected=true`, then the `Connect` reply; GATT discovery follows.
    private func linkUp(_ invocation: DBusMethodInvocation) {
        state = .connected
        set("Connected", .bool(true))
        invocation.reply()
        board.linkUp()
        sim.log("\(board.address) connected")
        resolveTask = schedule(after: sim.behavior.serviceDiscoveryDelay) { [weak self] in self?.resolveServices() }
    }

    /// GATT discovery done: objects announced (first link, or after a cache-less disconnect),
    /// `UUIDs` updated, MTU known, then `ServicesResolved=true`; surviving notify sessions are
    /// re-armed.
    private func resolveServices() {
        guard state == .connected || state == .disconnecting, !isRemoved else { return }
        resolveTask = nil
        if servicesChanged {
            // The cache is stale (the firmware changed): the old objects go, new ones come.
            servicesChanged = false
            removeGATT()
            sim.tree.flush()
        }
        if characteristics.isEmpty {
            exportGATT()
            sim.tree.flush()
            set("UUIDs", .strings(uuids), flush: true)
        } else {
            for characteristic in characteristics { characteristic.linkUp(mtu: board.mtu) }
        }
        servicesResolved = true
        set("ServicesResolved", .bool(true), flush: true)
        if characteristics.contains(where: { !$0.sessions.isEmpty }) { board.subscribed() }
    }

    /// The board's services changed (a firmware update): the GATT objects are re-exported at
    /// once when resolved (`ServicesResolved` false, `InterfacesRemoved`, `InterfacesAdded`,
    /// `ServicesResolved` true), else at the next connection. Notify sessions are lost.
    func changeServices() {
        servicesChanged = true
        guard hasLink, servicesResolved else { return }
        servicesResolved = false
        set("ServicesResolved", .bool(false), flush: true)
        resolveServices()
    }

    /// Cancels a pending `Connect`, answering it with `error`.
    func cancelConnect(with error: DBusError) {
        guard state == .connecting else { return }
        connectTask?.cancel()
        connectTask = nil
        state = .disconnected
        if adapter.connectingDevice === self { adapter.connectingDevice = nil }
        let invocation = pendingConnect
        pendingConnect = nil
        invocation?.fail(error)
    }

    func disconnect(_ invocation: DBusMethodInvocation) {
        switch state {
        case .disconnected:
            invocation.reply()
        case .connecting:
            cancelConnect(with: BlueZErrors.connectionCanceled)
            invocation.reply()
        case .connected:
            afterDisconnect.append { invocation.reply() }
            beginDisconnect()
        case .disconnecting:
            afterDisconnect.append { invocation.reply() }
        }
    }

    /// Waits the disconnect delay (BlueZ's 2 s for profiles), then drops the link (Local).
    func beginDisconnect() {
        guard state == .connected else { return }
        state = .disconnecting
        disconnectTask = schedule(after: sim.behavior.disconnectDelay) { [weak self] in
            self?.tearDownLink(reason: .local)
        }
    }

    /// The board drops the link (switched off, out of range): what a `Disconnect` shows,
    /// with reason Remote or Timeout. A pending connect fails with "br-connection-canceled".
    func dropLink(reason: DisconnectReason) {
        switch state {
        case .connecting: cancelConnect(with: BlueZErrors.connectionCanceled)
        case .connected, .disconnecting: tearDownLink(reason: reason)
        case .disconnected: break
        }
    }

    /// The adapter was powered off.
    func adapterPoweredOff() {
        switch state {
        case .connecting:
            cancelConnect(with: sim.version.atLeast(62) ? BlueZErrors.abortByLocal : BlueZErrors.softwareAbort)
        case .connected, .disconnecting: tearDownLink(reason: .local)
        case .disconnected: break
        }
        discoveryEnded()
    }

    /// The link goes down. BlueZ 5.83+: `ServicesResolved=false`, `Disconnected(reason,
    /// message)`, `Connected=false`, each flushed on its own; older: both properties in one
    /// signal. Then pending `Disconnect`/`RemoveDevice` calls are answered.
    func tearDownLink(reason: DisconnectReason) {
        guard hasLink else { return }
        disconnectTask?.cancel()
        disconnectTask = nil
        resolveTask?.cancel()
        resolveTask = nil
        state = .disconnected
        board.linkDown()
        for characteristic in characteristics { characteristic.linkDown() }
        let wasResolved = servicesResolved
        servicesResolved = false
        if sim.version.atLeast(83) {
            if wasResolved { set("ServicesResolved", .bool(false), flush: true) }
            if !isRemoved {
                try? sim.tree.emitSignal(
                    path: path, interface: Self.interface, member: "Disconnected",
                    body: [.string(reason.reasonName), .string(reason.message)])
            }
            set("Connected", .bool(false), flush: true)
        } else {
            if wasResolved { set("ServicesResolved", .bool(false)) }
            set("Connected", .bool(false), flush: true)
        }
        if !sim.behavior.gattCache {
            removeGATT()
            set("UUIDs", .strings(uuids))
        }
        sim.log("\(board.address) disconnected (\(reason.rawValue))")
        let waiting = afterDisconnect
        afterDisconnect = []
        for action in waiting { action() }
    }
}

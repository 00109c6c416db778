import DBus

/// The LE connection state machine of `Device1` (§3.3): `Connect` with injectable outcomes,
/// one LE connect per adapter, `Disconnect` in BlueZ's signal order, remote drops.
extension FakeDevice {
    /// `Connect` (device.c `dev_connect`, LE path): `InProgress` while pairing or another
    /// Connect is pending; success at once while a link exists, also during a pending
    /// `Disconnect` (the link still drops when its 2 s are up); `Failed` "Input/output
    /// error" when the adapter is off (the ATT socket cannot be created). Otherwise the
    /// attempt waits its turn on the adapter (the kernel runs one LE connect per
    /// controller and queues the rest).
    func connect(_ invocation: DBusMethodInvocation) {
        guard pendingPair == nil else { return invocation.fail(BlueZErrors.inProgress) }
        switch state {
        case .connecting: return invocation.fail(BlueZErrors.inProgress)
        case .connected, .disconnecting: return invocation.reply()
        case .disconnected: break
        }
        guard adapter.isPowered else { return invocation.fail(BlueZErrors.ioError) }
        markPermanent()
        let outcome = board.takeConnectOutcome()
        if let error = outcome.immediateError {
            sim.log("\(board.address) connect refused: \(error)")
            return invocation.fail(error)
        }
        pendingConnect = invocation
        beginConnectAttempt(outcome)
    }

    /// Queues an LE connect attempt that will end as `outcome`.
    func beginConnectAttempt(_ outcome: ConnectOutcome) {
        state = .connecting
        connectOutcome = outcome
        adapter.enqueueConnect(self)
    }

    /// The adapter's turn came: the attempt runs. A board that is not there is waited for
    /// (the kernel's LE connect timeout, ``BehaviorConfiguration/connectTimeout``); if it
    /// comes into range meanwhile the link comes up.
    func startConnectAttempt() {
        guard state == .connecting else { return adapter.connectFinished(self) }
        let outcome = connectOutcome
        waitingForBoard = outcome == .timeout && !board.isPresent
        let delay =
            outcome == .timeout
            ? sim.behavior.connectTimeout : sim.jittered(sim.behavior.connectDelay, by: sim.behavior.connectJitter)
        drawnConnect = delay
        connectStarted = sim.clock.now()
        connectTask = schedule(after: delay) { [weak self] in self?.finishConnect(outcome) }
    }

    /// The board came into range (switched on): a connect waiting for it succeeds.
    func boardAppeared() {
        guard state == .connecting, waitingForBoard else { return }
        waitingForBoard = false
        connectTask?.cancel()
        // The radio waited for it since the attempt began, and connects now.
        drawnConnect = sim.clock.now() - connectStarted + sim.behavior.connectDelay
        connectTask = schedule(after: sim.behavior.connectDelay) { [weak self] in self?.finishConnect(.success) }
    }

    /// The connect attempt ends as `outcome` decided.
    private func finishConnect(_ outcome: ConnectOutcome) {
        guard state == .connecting else { return }
        let invocation = pendingConnect
        pendingConnect = nil
        connectTask = nil
        waitingForBoard = false
        adapter.connectFinished(self)
        let abortError = sim.version.atLeast(62) ? BlueZErrors.abortByLocal : BlueZErrors.softwareAbort
        if outcome != .success || !board.isPresent {
            // Failed, it still held the radio (a link that comes up records its discovery too).
            sim.radioTimes.record(adapter: adapter.name, address: board.address, connect: drawnConnect, discovery: nil)
        }
        switch outcome {
        case .success where board.isPresent:
            linkUp(invocation)
            return
        case .abort, .oldAbort:
            // The link came up for a moment: Connected=true, the error, Connected=false.
            state = .disconnected
            set("Connected", .bool(true))
            invocation?.fail(outcome == .oldAbort ? BlueZErrors.softwareAbort : abortError)
            set("Connected", .bool(false))
            sim.log("\(board.address) connect aborted")
        case .canceled:
            state = .disconnected
            invocation?.fail(BlueZErrors.connectionCanceled)
            sim.log("\(board.address) connect canceled")
        case .success, .timeout, .inProgress, .already, .ioError:
            state = .disconnected
            invocation?.fail(abortError)
            sim.log("\(board.address) connect timed out")
        }
        // A Pair that had to connect first fails with strerror(ECONNABORTED) (att_connect_cb).
        failPairing(BlueZErrors.softwareAbort)
    }

    /// Link up: `Connected=true`, then the `Connect` reply; GATT discovery follows (and the
    /// pairing of a `Pair` that connected first).
    private func linkUp(_ invocation: DBusMethodInvocation?) {
        state = .connected
        set("Connected", .bool(true))
        invocation?.reply()
        board.linkUp()
        sim.log("\(board.address) connected")
        let discovery = sim.jittered(sim.behavior.serviceDiscoveryDelay, by: sim.behavior.serviceDiscoveryJitter)
        sim.radioTimes.record(
            adapter: adapter.name, address: board.address, connect: drawnConnect, discovery: discovery)
        resolveTask = schedule(after: discovery) { [weak self] in self?.resolveServices() }
        if pendingPair != nil { completePairingSoon() }
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
        // Every surviving notify session is registered again (Notifying=true where it was
        // false: sessions armed while disconnected).
        for characteristic in characteristics { characteristic.registerAll() }
        if characteristics.contains(where: { $0.isSubscribed }) { board.subscribed() }
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
        waitingForBoard = false
        state = .disconnected
        adapter.connectFinished(self)
        let invocation = pendingConnect
        pendingConnect = nil
        invocation?.fail(error)
        failPairing(BlueZErrors.authenticationCanceled)
    }

    func disconnect(_ invocation: DBusMethodInvocation) {
        failPairing(BlueZErrors.authenticationCanceled)
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

    /// Waits the disconnect delay (bluetoothd's `DISCONNECT_TIMER`, 2 s for profiles), then
    /// drops the link (Local). Meanwhile the link is up: `Connect` succeeds at once,
    /// `StartNotify` fails `NotConnected`.
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
        failPairing(BlueZErrors.authenticationCanceled)
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

/// `Pair` on an LE device (device.c `pair_device`): the ATT link comes up first (a normal
/// connection: `Connected`, GATT discovery, `ServicesResolved`), then Just Works pairing;
/// the reply comes when bonded, and the link stays.
extension FakeDevice {
    func pair(_ invocation: DBusMethodInvocation) {
        guard pendingPair == nil, state != .connecting else { return invocation.fail(BlueZErrors.inProgress) }
        guard !isPaired else { return invocation.fail(BlueZErrors.alreadyExists) }
        markPermanent()
        pendingPair = invocation
        if hasLink { return completePairingSoon() }
        guard adapter.isPowered else {
            pendingPair = nil
            return invocation.fail(BlueZErrors.ioError)
        }
        let outcome = board.takeConnectOutcome()
        if let error = outcome.immediateError {
            pendingPair = nil
            return invocation.fail(error)
        }
        beginConnectAttempt(outcome)
    }

    /// SMP takes about one ATT round trip here.
    func completePairingSoon() {
        schedule(after: sim.behavior.writeResponseDelay) { [weak self] in
            guard let self, self.hasLink, let invocation = self.pendingPair else { return }
            self.pendingPair = nil
            self.isPaired = true
            self.set("Paired", .bool(true))
            if self.sim.version.atLeast(65) { self.set("Bonded", .bool(true)) }
            invocation.reply()
            self.sim.log("\(self.board.address) paired")
        }
    }

    /// A pending `Pair` ends with `error`.
    func failPairing(_ error: DBusError) {
        guard let invocation = pendingPair else { return }
        pendingPair = nil
        invocation.fail(error)
    }
}

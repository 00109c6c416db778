import DBus
import FoundationEssentials

/// The bus connection, BlueZ's name, the initial tree and the signals.
extension BlueZManager {
    /// Connects to the bus and follows BlueZ from now on (in the background; returns at once).
    /// Bus failures are retried with back-off forever, never thrown. Idempotent.
    public func start() {
        guard isStopped else { return }
        isStopped = false
        busTask = Task { await self.connectBus(initialDelay: 0) }
    }

    /// Closes the connection and forgets BlueZ's objects; every link is reported lost.
    /// ``start()`` starts over.
    public func stop() {
        guard !isStopped else { return }
        isStopped = true
        busTask?.cancel()
        busTask = nil
        let connection = self.connection
        detach()
        connection?.close()
        forgetBlueZ(reason: "the BlueZ manager was stopped")
        state = .stopped
    }

    /// Tries to connect until it works (or the manager is stopped).
    func connectBus(initialDelay: TimeInterval) async {
        defer { busTask = nil }
        var attempt = 0
        if initialDelay > 0 {
            guard await scheduler.sleep(initialDelay) else { return }
        }
        while !isStopped && !Task.isCancelled {
            state = .connecting
            let address = busAddress ?? DBusConnection.systemBusAddress
            do throws(DBusError) {
                let connection = try await DBusConnection(address: address)
                guard !isStopped else {
                    connection.close()
                    return
                }
                try await attach(connection)
                // A loss while attaching leaves no connection behind: try again.
                if self.connection === connection && connection.isConnected {
                    logger.info("connected to the D-Bus bus at \(address) as \(connection.uniqueName)")
                    return
                }
            } catch {
                if isStopped { return }
                state = .busUnavailable(error.description)
            }
            attempt += 1
            let delay = settings.busRetryDelay(attempt: attempt)
            logger.warning("the D-Bus bus at \(address) is not usable (\(state)); retrying in \(delay) s")
            guard await scheduler.sleep(delay) else { return }
        }
    }

    /// Match rules first, then the name watch (whose first answer triggers GetManagedObjects).
    private func attach(_ connection: DBusConnection) async throws(DBusError) {
        self.connection = connection
        connection.onDisconnect = { [weak self, weak connection] error in
            guard let self, let connection, self.connection === connection else { return }
            self.busLost(error)
        }
        do throws(DBusError) {
            let added = try await connection.subscribe(.interfacesAdded(sender: BlueZNames.service)) { [weak self] in
                self?.handleInterfacesAdded($0)
            }
            subscriptions.append(added)
            let removed = try await connection.subscribe(.interfacesRemoved(sender: BlueZNames.service)) {
                [weak self] in self?.handleInterfacesRemoved($0)
            }
            subscriptions.append(removed)
            let changed = try await connection.subscribe(
                .propertiesChanged(sender: BlueZNames.service, pathNamespace: BlueZNames.root)
            ) { [weak self] in self?.handlePropertiesChanged($0) }
            subscriptions.append(changed)
            state = .waitingForBlueZ
            let watch = try await connection.watchNameOwner(BlueZNames.service) { [weak self] owner in
                self?.handleOwner(owner)
            }
            subscriptions.append(watch)
        } catch {
            if self.connection === connection { detach() }
            connection.close()
            throw error
        }
    }

    /// Drops the connection's subscriptions and the reference to it.
    func detach() {
        for subscription in subscriptions { subscription.cancel() }
        subscriptions = []
        connection?.onDisconnect = nil
        connection = nil
        bluezOwner = nil
        loadGeneration += 1
    }

    /// The bus went away: links down, model gone, reconnect with back-off.
    func busLost(_ error: DBusError) {
        logger.error("lost the D-Bus connection (\(error)); reconnecting")
        detach()
        forgetBlueZ(reason: "the D-Bus connection was lost")
        state = .busUnavailable(error.description)
        guard !isStopped, busTask == nil else { return }
        let delay = settings.busRetryDelay(attempt: 1)
        busTask = Task { await self.connectBus(initialDelay: delay) }
    }

    /// Empties the model and tells every transport its link is gone.
    func forgetBlueZ(reason: String) {
        let hadObjects = !model.adapters.isEmpty || !model.devices.isEmpty
        model.removeAll()
        discoveryActive = []
        discoveryPending = []
        discoveryRetry?.cancel()
        discoveryRetry = nil
        seenDevices = []
        if hadObjects { logger.warning("BlueZ objects dropped: \(reason)") }
        for client in liveClients { client.manager(self, lostBlueZ: reason) }
    }

    // MARK: org.bluez's owner

    private func handleOwner(_ owner: String?) {
        guard let owner else {
            if bluezOwner != nil || state == .ready || state == .loading {
                logger.warning("org.bluez left the bus")
                bluezOwner = nil
                loadGeneration += 1
                forgetBlueZ(reason: "BlueZ (org.bluez) left the bus")
            }
            state = .waitingForBlueZ
            return
        }
        guard owner != bluezOwner else { return }
        if bluezOwner != nil {
            logger.warning("org.bluez changed owner to \(owner)")
            forgetBlueZ(reason: "BlueZ (org.bluez) restarted")
        }
        bluezOwner = owner
        loadFailures = 0
        loadObjects()
    }

    /// `GetManagedObjects`, replacing the model; retried with back-off on failure.
    func loadObjects() {
        guard let connection else { return }
        loadGeneration += 1
        let generation = loadGeneration
        state = .loading
        Task {
            do throws(DBusError) {
                let timeout = Duration.milliseconds(Int64(settings.callTimeout * 1000))
                let reply = try await connection.call(
                    destination: BlueZNames.service, path: "/", interface: DBusStandard.objectManagerInterface,
                    member: "GetManagedObjects", timeout: timeout)
                guard generation == loadGeneration else { return }
                guard reply.count == 1, let objects = reply[0].managedObjectsValue else {
                    throw DBusError(
                        name: DBusError.Name.invalidSignature,
                        message:
                            "GetManagedObjects replied '\(DBusValue.signature(of: reply))', expected 'a{oa{sa{sv}}}'")
                }
                let update = model.load(objects)
                log(update.issues)
                loadFailures = 0
                seenDevices = Set(model.devices.values.filter { $0.rssi != nil }.map(\.path))
                logger.info(
                    "BlueZ ready: \(model.adapters.count) adapter(s), \(model.devices.count) device(s)")
                state = .ready
                for client in liveClients { client.manager(self, didApply: update.changes) }
                reconcileDiscovery()
            } catch {
                guard generation == loadGeneration else { return }
                loadFailed(error, generation: generation)
            }
        }
    }

    private func loadFailed(_ error: DBusError, generation: Int) {
        loadFailures += 1
        let delay = settings.busRetryDelay(attempt: loadFailures)
        switch BlueZErrorKind(error) {
        case .accessDenied:
            logger.error("BlueZ refused GetManagedObjects (\(error)); retrying in \(delay) s")
            state = .unauthorized(error.description)
        default:
            logger.warning("GetManagedObjects failed (\(error)); retrying in \(delay) s")
            if state == .loading { state = .waitingForBlueZ }
        }
        _ = scheduler.schedule(after: delay) { [weak self] in
            guard let self, generation == self.loadGeneration, self.bluezOwner != nil else { return }
            self.loadObjects()
        }
    }

    // MARK: Signals

    private func handleInterfacesAdded(_ message: DBusMessage) {
        guard message.body.count == 2, let path = message.body[0].objectPathValue,
            let interfaces = message.body[1].interfacesAndPropertiesValue
        else {
            logger.warning("malformed InterfacesAdded (signature '\(message.signature)') ignored")
            return
        }
        guard path.hasPrefix(BlueZNames.root + "/") else { return }
        apply(model.interfacesAdded(path: path, interfaces: interfaces))
    }

    private func handleInterfacesRemoved(_ message: DBusMessage) {
        guard message.body.count == 2, let path = message.body[0].objectPathValue,
            let interfaces = message.body[1].stringArrayValue
        else {
            logger.warning("malformed InterfacesRemoved (signature '\(message.signature)') ignored")
            return
        }
        guard path.hasPrefix(BlueZNames.root + "/") else { return }
        apply(model.interfacesRemoved(path: path, interfaces: interfaces))
    }

    private func handlePropertiesChanged(_ message: DBusMessage) {
        guard message.body.count >= 2, let interface = message.body[0].stringValue,
            let changed = message.body[1].stringDictionaryValue
        else {
            logger.warning(
                "malformed PropertiesChanged from \(message.path) (signature '\(message.signature)') ignored")
            return
        }
        let invalidated = message.body.count >= 3 ? (message.body[2].stringArrayValue ?? []) : []
        apply(
            model.propertiesChanged(
                path: message.path, interface: interface, changed: changed, invalidated: invalidated))
    }

    private func apply(_ update: BlueZModelUpdate) {
        log(update.issues)
        guard state == .ready, !update.changes.isEmpty else { return }
        var adaptersChanged = false
        var broadcast: [BlueZModelChange] = []
        broadcast.reserveCapacity(update.changes.count)
        for change in update.changes {
            if case .value(let path, let bytes) = change, let client = valueRoutes[path]?.client {
                client.manager(self, didReceiveValue: bytes, from: path)
                continue
            }
            broadcast.append(change)
            switch change {
            case .deviceAdded(let path), .deviceChanged(let path, _):
                if let device = model.devices[path], isDiscovering(on: device.adapterPath) { seenDevices.insert(path) }
            case .deviceRemoved(let path):
                seenDevices.remove(path)
            case .adapterChanged, .adapterRemoved:
                adaptersChanged = true
            default:
                break
            }
        }
        if !broadcast.isEmpty {
            for client in liveClients { client.manager(self, didApply: broadcast) }
        }
        if adaptersChanged {
            discoveryActive = discoveryActive.filter { model.adapters[$0] != nil }
            reconcileDiscovery()
        }
    }

    func log(_ issues: [BlueZModelIssue]) {
        for issue in issues { logger.log(issue.level, issue.description) }
    }
}

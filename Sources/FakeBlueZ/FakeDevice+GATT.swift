import DBus
import FoundationEssentials
import MainLoop

/// The GATT objects of a device (§4): export in handle order (parent before child), I/O with
/// BlueZ's errors, notify sessions, and notifications from the board's firmware.
extension FakeDevice {
    /// Exports every service, characteristic and descriptor of the board's layout.
    func exportGATT() {
        let tree = sim.tree
        let version = sim.version
        // Claimed services (GAP, DIS) are exported, read-only, from BlueZ 5.80 on.
        for service in board.layout.services where !service.isClaimed || version.atLeast(80) {
            let servicePath = path + "/service" + Self.hex4(service.handle)
            var properties: [(String, DBusValue)] = []
            if version.atLeast(69) { properties.append(("Handle", .uint16(service.handle))) }
            properties += [
                ("UUID", .string(service.uuid)), ("Device", .objectPath(path)), ("Primary", .bool(true)),
                ("Includes", .objectPaths([])),
            ]
            do {
                try tree.addInterface(
                    DBusInterface(name: FakeCharacteristic.serviceInterface, methods: [], properties: properties),
                    at: servicePath)
            } catch {
                sim.log("cannot export \(servicePath): \(error)")
                continue
            }
            gattServices.append(servicePath)
            for definition in service.characteristics {
                let characteristic = FakeCharacteristic(
                    device: self, path: servicePath + "/char" + Self.hex4(definition.handle), servicePath: servicePath,
                    definition: definition, isClaimed: service.isClaimed)
                export(characteristic)
                characteristics.append(characteristic)
            }
        }
    }

    private func export(_ characteristic: FakeCharacteristic) {
        let tree = sim.tree
        let interface = DBusInterface(
            name: FakeCharacteristic.interface,
            methods: [
                DBusMethodDescription(
                    "ReadValue", in: [DBusArgument("options", "a{sv}")], out: [DBusArgument("value", "ay")]),
                DBusMethodDescription(
                    "WriteValue", in: [DBusArgument("value", "ay"), DBusArgument("options", "a{sv}")]),
                DBusMethodDescription("StartNotify"), DBusMethodDescription("StopNotify"),
                DBusMethodDescription(
                    "AcquireNotify", in: [DBusArgument("options", "a{sv}")],
                    out: [DBusArgument("fd", "h"), DBusArgument("mtu", "q")]),
                DBusMethodDescription(
                    "AcquireWrite", in: [DBusArgument("options", "a{sv}")],
                    out: [DBusArgument("fd", "h"), DBusArgument("mtu", "q")]),
            ],
            properties: characteristic.initialProperties(connected: hasLink, mtu: board.mtu),
            methodHandler: { [weak self, weak characteristic] invocation in
                guard let self, let characteristic else { return }
                self.handle(invocation, on: characteristic)
            })
        do {
            try tree.addInterface(interface, at: characteristic.path)
        } catch {
            sim.log("cannot export \(characteristic.path): \(error)")
        }
        for descriptor in characteristic.definition.descriptors {
            let descriptorPath = characteristic.path + "/desc" + Self.hex4(descriptor.handle)
            var properties: [(String, DBusValue)] = []
            if sim.version.atLeast(69) { properties.append(("Handle", .uint16(descriptor.handle))) }
            properties += [
                ("UUID", .string(descriptor.uuid)), ("Characteristic", .objectPath(characteristic.path)),
                ("Value", .bytes([])),
            ]
            let descriptorInterface = DBusInterface(
                name: FakeCharacteristic.descriptorInterface,
                methods: [
                    DBusMethodDescription(
                        "ReadValue", in: [DBusArgument("options", "a{sv}")], out: [DBusArgument("value", "ay")]),
                    DBusMethodDescription(
                        "WriteValue", in: [DBusArgument("value", "ay"), DBusArgument("options", "a{sv}")]),
                ],
                properties: properties,
                methodHandler: { [weak self, weak characteristic] invocation in
                    guard let self, let characteristic else { return }
                    self.handleDescriptor(invocation, of: characteristic, path: descriptorPath)
                })
            try? tree.addInterface(descriptorInterface, at: descriptorPath)
            characteristic.cccdPath = descriptorPath
        }
    }

    /// Removes every GATT object, `InterfacesRemoved` per object, in bluetoothd's order
    /// (gatt-client.c: `btd_gatt_client_destroy` and `gatt_db_clear` go through the services
    /// in handle order; `unregister_service` removes each characteristic, after its
    /// descriptors, before the service): lowest handle first, children before their parent.
    func removeGATT() {
        for characteristic in characteristics { characteristic.abandon() }
        for servicePath in gattServices {
            for characteristic in characteristics where characteristic.servicePath == servicePath {
                if let descriptor = characteristic.cccdPath { sim.tree.removeObject(at: descriptor) }
                sim.tree.removeObject(at: characteristic.path)
            }
            sim.tree.removeObject(at: servicePath, includingDescendants: true)
        }
        gattServices.removeAll()
        characteristics.removeAll()
    }

    // MARK: Methods

    private func handle(_ invocation: DBusMethodInvocation, on characteristic: FakeCharacteristic) {
        switch invocation.member {
        case "ReadValue": read(invocation, characteristic)
        case "WriteValue": write(invocation, characteristic)
        case "StartNotify": startNotify(invocation, characteristic)
        case "StopNotify":
            // bluetoothd: while AcquireNotify holds the characteristic, StopNotify (from
            // anyone) closes the socket and succeeds.
            if characteristic.acquiredNotify != nil {
                characteristic.releaseNotify()
                return invocation.reply()
            }
            guard characteristic.removeSession(invocation.sender) else {
                return invocation.fail(BlueZErrors.noNotifySession)
            }
            // Notifying=false (when it changes) is queued first, so it precedes the reply.
            invocation.reply()
        case "AcquireNotify": acquireNotify(invocation, characteristic)
        case "AcquireWrite": acquireWrite(invocation, characteristic)
        default:
            invocation.fail(DBusError.noSuchMethod(invocation.message))
        }
    }

    private func read(_ invocation: DBusMethodInvocation, _ characteristic: FakeCharacteristic) {
        let options: GattOptions
        do throws(DBusError) {
            options = try GattOptions(invocation.body.first)
        } catch {
            return invocation.fail(error)
        }
        guard hasLink else { return invocation.fail(BlueZErrors.notConnectedIO) }
        guard characteristic.definition.canRead else { return invocation.fail(BlueZErrors.readNotPermitted) }
        let value =
            characteristic.uuid == GattLayout.batteryLevelUUID
            ? [UInt8(clamping: board.batteryPercent)] : characteristic.definition.readValue ?? characteristic.value
        let offset = Int(options.offset)
        guard offset <= value.count else { return invocation.fail(BlueZErrors.invalidOffset) }
        // A read result is also signalled as a Value change (its own signal).
        characteristic.setValue(value)
        invocation.reply([.bytes(value[offset...])])
    }

    /// `StartNotify` (gatt-client.c's order of checks): per sender; a session armed while
    /// disconnected answers a second call `InProgress`; `Notifying=true` goes out before the
    /// reply (gdbus flushes queued signals before any message).
    private func startNotify(_ invocation: DBusMethodInvocation, _ characteristic: FakeCharacteristic) {
        guard state != .disconnecting else { return invocation.fail(BlueZErrors.notConnected) }
        guard characteristic.acquiredNotify == nil else { return invocation.fail(BlueZErrors.notifyAcquired) }
        guard characteristic.definition.canNotify else { return invocation.fail(BlueZErrors.notSupported) }
        if characteristic.sessions.contains(invocation.sender) {
            return characteristic.isArmedOnly(invocation.sender)
                ? invocation.fail(BlueZErrors.inProgress) : invocation.reply()
        }
        let linked = state == .connected
        characteristic.addSession(invocation.sender, linked: linked)
        invocation.reply()
        if linked && servicesResolved { board.subscribed() }
    }

    /// `WriteValue` in gatt-client.c's order: "Not connected", "Write acquired", `InProgress`
    /// while any write holds the characteristic's lock (a command too), the arguments, a
    /// claimed service, then the type: `reliable`/`request` are sent whatever the flags say
    /// (the board answers an ATT error if it does not take them), `command` likewise;
    /// anything else, or no type and no write flag, is `NotSupported`.
    private func write(_ invocation: DBusMethodInvocation, _ characteristic: FakeCharacteristic) {
        guard hasLink else { return invocation.fail(BlueZErrors.notConnectedIO) }
        guard characteristic.acquiredWrite == nil else { return invocation.fail(BlueZErrors.writeAcquired) }
        guard !characteristic.requestWritePending else { return invocation.fail(BlueZErrors.inProgress) }
        let options: GattOptions
        do throws(DBusError) {
            options = try GattOptions(invocation.body.count > 1 ? invocation.body[1] : nil)
        } catch {
            return invocation.fail(error)
        }
        guard let bytes = invocation.body.first?.bytesValue else {
            return invocation.fail(BlueZErrors.invalidArguments)
        }
        guard !characteristic.isClaimed else { return invocation.fail(BlueZErrors.notAuthorized) }
        let flags = characteristic.definition.flags
        let type = options.type?.lowercased()
        let request = type == "request" || type == "reliable" || (type == nil && flags.contains("write"))
        if request {
            writeRequest(invocation, characteristic, bytes: bytes, type: type ?? "request")
            return
        }
        let command = type == "command" || (type == nil && flags.contains("write-without-response"))
        guard command, options.offset == 0 else { return invocation.fail(BlueZErrors.notSupported) }
        // Write without response: answered at once (bluetoothd does not look at the flag).
        guard bytes.count <= board.mtu - 3 else { return invocation.fail(BlueZErrors.writeNotInitiated) }
        invocation.reply()
        guard characteristic.definition.canWrite else { return }
        let frames = board.receiveWrite(bytes, characteristic: characteristic.uuid, type: "command")
        board.emit(frames)
    }

    /// A write request: the characteristic is locked until the board's ATT response comes;
    /// a board that does not take writes there answers Write Not Permitted
    /// (`NotPermitted` "Write not permitted").
    ///
    /// The write is logged as it arrives; the firmware answers it when the response goes
    /// out, so the answer shows the board as it stands then. (Answering at arrival and
    /// sending the answer a response delay later let a stale status report follow the
    /// reports of a change made meanwhile: a Millennium set up again right after the
    /// bridge's `S` was read as the old position coming back.)
    private func writeRequest(
        _ invocation: DBusMethodInvocation, _ characteristic: FakeCharacteristic, bytes: [UInt8], type: String
    ) {
        characteristic.requestWritePending = true
        let accepted = characteristic.definition.canWrite
        let toFirmware = accepted && board.logWrite(bytes, characteristic: characteristic.uuid, type: type)
        let epoch = characteristic.writeEpoch
        sim.answerWrite(after: sim.behavior.writeResponseDelay) { [weak self, weak characteristic] in
            guard let self, let characteristic, characteristic.writeEpoch == epoch, !self.isRemoved else {
                return invocation.fail(BlueZErrors.notConnectedIO)
            }
            characteristic.requestWritePending = false
            guard self.hasLink else { return invocation.fail(BlueZErrors.notConnectedIO) }
            guard accepted else { return invocation.fail(BlueZErrors.writeNotPermitted) }
            invocation.reply()
            if toFirmware { self.board.emit(self.board.firmwareHandles(bytes)) }
        }
    }

    /// The CCCD: readable (notifications on or off), never writable (use StartNotify).
    private func handleDescriptor(
        _ invocation: DBusMethodInvocation, of characteristic: FakeCharacteristic, path: String
    ) {
        do throws(DBusError) {
            _ = try GattOptions(invocation.member == "ReadValue" ? invocation.body.first : invocation.body.last)
        } catch {
            return invocation.fail(error)
        }
        guard hasLink else { return invocation.fail(BlueZErrors.notConnectedIO) }
        switch invocation.member {
        case "ReadValue":
            let value: [UInt8] = [characteristic.isSubscribed ? 0x01 : 0x00, 0x00]
            sim.tree.setProperty(
                "Value", interface: FakeCharacteristic.descriptorInterface, path: path, to: .bytes(value), flush: true)
            invocation.reply([.bytes(value)])
        case "WriteValue":
            invocation.fail(BlueZErrors.writeNotPermitted)
        default:
            invocation.fail(DBusError.noSuchMethod(invocation.message))
        }
    }

    // MARK: Notifications and sessions

    /// Sends the firmware's notifications, each on the characteristic it belongs to, as its
    /// own `PropertiesChanged(Value)`. Dropped (and counted) without a link, a resolved
    /// service set or a notify session; longer than MTU − 3: truncated or refused (counted).
    func deliverNotifications(_ frames: [Data]) {
        for frame in frames {
            var bytes = [UInt8](frame)
            guard hasLink, servicesResolved, !isRemoved,
                let uuid = NotificationRouting.characteristic(for: bytes, profile: board.profile),
                let characteristic = characteristics.first(where: { $0.uuid == uuid && $0.definition.canNotify }),
                characteristic.isSubscribed
            else {
                board.droppedNotifications += 1
                continue
            }
            let limit = board.mtu - 3
            if bytes.count > limit {
                board.oversizeNotifications += 1
                if sim.behavior.oversizeNotifications == .refuse { continue }
                bytes = Array(bytes.prefix(limit))
            }
            // Stamped before the send: once the datagram is in the socket the receiver may run
            // (and the move reach a subscriber) before this process gets the CPU back.
            let sentAt = BootClock.nanoseconds()
            guard characteristic.notify(bytes) else {
                // The AcquireNotify socket is full: the client reads too slowly. bluetoothd
                // logs the sendmsg error and drops the notification; so does the fake.
                board.droppedNotifications += 1
                board.socketFullNotifications += 1
                sim.log("\(board.address): sendmsg: Resource temporarily unavailable (notification dropped)")
                continue
            }
            board.notificationsSent += 1
            board.lastNotificationTime = sentAt
        }
    }

    /// The battery changed: a subscribed Battery Level characteristic notifies the new level.
    func notifyBatteryLevel() {
        guard hasLink, servicesResolved, !isRemoved,
            let characteristic = characteristics.first(where: { $0.uuid == GattLayout.batteryLevelUUID }),
            characteristic.isSubscribed
        else { return }
        if !characteristic.notify([UInt8(clamping: board.batteryPercent)]) {
            board.droppedNotifications += 1
            board.socketFullNotifications += 1
        }
    }

    /// A client left the bus: its notify sessions and acquired sockets end.
    func clientLeft(_ name: String) {
        for characteristic in characteristics {
            characteristic.removeSession(name)
            if characteristic.acquiredNotify?.owner == name { characteristic.releaseNotify() }
            if characteristic.acquiredWrite?.owner == name { characteristic.releaseWrite() }
        }
    }

    // MARK: Acquired sockets

    /// `AcquireNotify(a{sv}) → (h, q)`: notifications as datagrams on a socket; `Value` is not
    /// updated meanwhile. Closing the socket releases it.
    private func acquireNotify(_ invocation: DBusMethodInvocation, _ characteristic: FakeCharacteristic) {
        guard hasLink else { return invocation.fail(BlueZErrors.notConnectedIO) }
        guard characteristic.acquiredNotify == nil else { return invocation.fail(BlueZErrors.notifyAcquired) }
        guard characteristic.sessions.isEmpty else { return invocation.fail(BlueZErrors.inProgress) }
        guard characteristic.definition.canNotify else { return invocation.fail(BlueZErrors.notSupported) }
        guard let pair = AcquiredSocket.makePair() else { return invocation.fail(BlueZErrors.ioError) }
        let socket = AcquiredSocket(
            descriptor: pair.ours, onDatagram: { _ in },
            onClose: { [weak characteristic] in characteristic?.releaseNotify() })
        characteristic.acquiredNotify = (socket, invocation.sender)
        // NotifyAcquired=true is queued first: it goes out before the reply.
        characteristic.set("NotifyAcquired", .bool(true))
        invocation.reply([.unixFD(pair.theirs), .uint16(UInt16(clamping: board.mtu))])
        SystemCalls.close(pair.theirs)
        if servicesResolved { board.subscribed() }
    }

    /// `AcquireWrite(a{sv}) → (h, q)`: each datagram written to the socket is a write command.
    private func acquireWrite(_ invocation: DBusMethodInvocation, _ characteristic: FakeCharacteristic) {
        guard hasLink else { return invocation.fail(BlueZErrors.notConnectedIO) }
        guard !characteristic.isClaimed else { return invocation.fail(BlueZErrors.notAuthorized) }
        guard characteristic.acquiredWrite == nil else { return invocation.fail(BlueZErrors.writeAcquired) }
        guard characteristic.definition.flags.contains("write-without-response") else {
            return invocation.fail(BlueZErrors.notSupported)
        }
        guard let pair = AcquiredSocket.makePair() else { return invocation.fail(BlueZErrors.ioError) }
        let uuid = characteristic.uuid
        let socket = AcquiredSocket(
            descriptor: pair.ours,
            onDatagram: { [weak self] bytes in
                guard let self, self.hasLink else { return }
                self.board.emit(self.board.receiveWrite(bytes, characteristic: uuid, type: "command"))
            },
            onClose: { [weak characteristic] in characteristic?.releaseWrite() })
        characteristic.acquiredWrite = (socket, invocation.sender)
        // WriteAcquired=true is queued first: it goes out before the reply.
        characteristic.set("WriteAcquired", .bool(true))
        invocation.reply([.unixFD(pair.theirs), .uint16(UInt16(clamping: board.mtu))])
        SystemCalls.close(pair.theirs)
    }

    static func hex4(_ value: UInt16) -> String {
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

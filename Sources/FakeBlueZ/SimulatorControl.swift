import DBus
import Emulation

/// The control interface `org.boardbridge.Simulator1` at `/org/boardbridge/sim`: the
/// simulator's test API on the bus, outside the BlueZ tree (not in `GetManagedObjects`).
///
/// Every method maps onto the ``FakeBlueZ`` control API; failures are
/// `org.boardbridge.Simulator.Error.*` errors (``FakeBlueZError/dbusError``). The method names
/// and signatures are stable: `boardsim ctl` and other engineers' tests depend on them.
enum SimulatorControl {
    /// The methods: name, input signature, output signature.
    static let methods: [(name: String, input: String, output: String)] = [
        ("ListAdapters", "", "aa{sv}"), ("ListBoards", "", "aa{sv}"), ("AddBoard", "s", "s"),
        ("RemoveBoard", "s", ""), ("PlayMoves", "sasd", ""), ("Lift", "ss", "t"), ("Place", "sss", "t"),
        ("KnockOver", "ss", "t"), ("SetUp", "ss", ""), ("DropLink", "ss", ""), ("FailConnects", "sus", ""),
        ("SetAdapterPowered", "sb", ""), ("SetBattery", "sub", ""), ("PressButton", "ss", ""),
        ("SetRSSI", "sn", ""), ("SetPresent", "sb", ""), ("SetAutoplay", "sd", ""), ("Writes", "s", "a(dssay)"),
        ("ClearWrites", "s", ""), ("ChangeServices", "s", ""), ("Violations", "s", "a{su}"), ("Placement", "s", "s"),
        ("Position", "s", "s"), ("LoseNotifications", "su", ""), ("RadioTimes", "t", "a(tssdd)"),
    ]

    @MainActor
    static func handle(_ invocation: DBusMethodInvocation, on sim: FakeBlueZ) {
        let call = invocation.message
        if call.interface == DBusStandard.introspectableInterface && call.member == "Introspect" {
            return invocation.reply([.string(introspection)])
        }
        guard call.interface == FakeBlueZ.controlInterface || call.interface.isEmpty,
            methods.contains(where: { $0.name == call.member && $0.input == call.signature })
        else { return invocation.fail(DBusError.noSuchMethod(call)) }
        let arguments = Arguments(values: call.body)
        if call.member == "PlayMoves" {
            Task { @MainActor in
                do throws(FakeBlueZError) {
                    try await sim.play(
                        arguments.strings(1), on: arguments.string(0), secondsPerMove: arguments.double(2))
                    invocation.reply()
                } catch {
                    invocation.fail(error.dbusError)
                }
            }
            return
        }
        do throws(FakeBlueZError) {
            invocation.reply(try perform(call.member, arguments, on: sim))
        } catch {
            invocation.fail(error.dbusError)
        }
    }

    @MainActor
    private static func perform(
        _ member: String, _ arguments: Arguments, on sim: FakeBlueZ
    ) throws(FakeBlueZError)
        -> [DBusValue]
    {
        let board = arguments.string(0)
        switch member {
        case "ListAdapters": return [.array("a{sv}", sim.adapterStatuses.map(dictionary))]
        case "RadioTimes":
            return [.array(RadioTime.dbusSignature, sim.radioTimes(since: arguments.uint64(0)).map(\.dbusValue))]
        case "ListBoards": return [.array("a{sv}", sim.boardStatuses.map(dictionary))]
        case "AddBoard": return [.string(try sim.addBoard(BoardConfiguration(specification: board)).id)]
        case "RemoveBoard": try sim.removeBoard(board)
        case "Lift":
            return [.uint64(try sim.perform(.lift(try FakeBlueZ.square(arguments.string(1))), on: board))]
        case "Place":
            let square = try FakeBlueZ.square(arguments.string(1))
            return [.uint64(try sim.perform(.place(try FakeBlueZ.piece(arguments.string(2)), on: square), on: board))]
        case "KnockOver":
            return [.uint64(try sim.perform(.knockOver(try FakeBlueZ.square(arguments.string(1))), on: board))]
        case "SetUp": try sim.setUp(board: board, fen: arguments.string(1))
        case "DropLink":
            let text = arguments.string(1).lowercased()
            guard let reason = text.isEmpty ? .remote : DisconnectReason(rawValue: text) else {
                throw .invalidValue(key: "reason", value: text)
            }
            try sim.dropLink(board: board, reason: reason)
        case "FailConnects":
            let text = arguments.string(2).lowercased()
            guard let outcome = text.isEmpty ? .abort : ConnectOutcome(rawValue: text) else {
                throw .invalidValue(key: "error", value: text)
            }
            try sim.failNextConnects(board: board, count: Int(arguments.uint32(1)), outcome: outcome)
        case "SetAdapterPowered": try sim.setPowered(adapter: board, arguments.bool(1))
        case "SetBattery":
            try sim.setBattery(board: board, percent: Int(clamping: arguments.uint32(1)), charging: arguments.bool(2))
        case "PressButton": try sim.pressButton(board: board, name: arguments.string(1))
        case "LoseNotifications": try sim.loseNotifications(board: board, count: Int(clamping: arguments.uint32(1)))
        case "SetRSSI": try sim.setRSSI(board: board, Int(arguments.int16(1)))
        case "SetPresent": try sim.setPresent(board: board, arguments.bool(1))
        case "SetAutoplay": try sim.setAutoplay(board: board, secondsPerMove: arguments.double(1))
        case "Writes":
            let records = try sim.writes(board: board).map { record in
                DBusValue.struct([
                    .double(record.time), .string(record.characteristic), .string(record.type), .bytes(record.bytes),
                ])
            }
            return [.array("(dssay)", records)]
        case "ClearWrites": try sim.clearWrites(board: board)
        case "ChangeServices": try sim.changeServices(board: board)
        case "Violations":
            let report = try sim.violations(board: board)
            let counters: [(String, Int)] = [
                ("writesTooClose", report.writesTooClose), ("missingAcks", report.missingAcks),
                ("malformedCommands", report.malformedCommands), ("commandsBeforeUnlock", report.commandsBeforeUnlock),
                ("total", report.total), ("oversizeNotifications", report.oversizeNotifications),
                ("droppedNotifications", report.droppedNotifications),
                ("socketFullNotifications", report.socketFullNotifications),
                ("notificationsSent", report.notificationsSent),
            ]
            return [
                .dictionary(
                    "s", "u",
                    counters.map { DBusDictEntry(key: .string($0.0), value: .uint32(UInt32(clamping: $0.1))) })
            ]
        case "Placement": return [.string(try sim.placement(board: board))]
        case "Position": return [.string(try sim.trackedPosition(board: board))]
        default: break
        }
        return []
    }

    private static func dictionary(_ status: AdapterStatus) -> DBusValue {
        .propertyDictionary([
            ("Name", .string(status.name)), ("Address", .string(status.address)), ("Path", .objectPath(status.path)),
            ("Powered", .bool(status.powered)), ("Discovering", .bool(status.discovering)),
            ("Sessions", .uint32(UInt32(clamping: status.sessions))),
            ("Devices", .uint32(UInt32(clamping: status.devices))),
        ])
    }

    private static func dictionary(_ status: BoardStatus) -> DBusValue {
        var entries: [(String, DBusValue)] = [
            ("Id", .string(status.id)), ("Name", .string(status.name)), ("Family", .string(status.family)),
            ("Address", .string(status.address)), ("Adapter", .string(status.adapter)),
            ("Path", .objectPath(status.path)), ("Exported", .bool(status.exported)),
            ("Connected", .bool(status.connected)), ("Present", .bool(status.present)),
            ("RSSI", .int16(Int16(clamping: status.rssi))), ("MTU", .uint16(UInt16(clamping: status.mtu))),
            ("Battery", .byte(UInt8(clamping: status.battery))), ("Charging", .bool(status.charging)),
            ("Placement", .string(status.placement)), ("Playing", .bool(status.playing)),
            ("Autoplay", .double(status.autoplay)), ("Writes", .uint32(UInt32(clamping: status.writes))),
        ]
        // A file path, not an object path: a string of its own.
        if let link = status.link { entries.append(("Link", .string(link))) }
        return .propertyDictionary(entries)
    }

    private static let introspection: String = {
        var xml = """
            <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
            <node><interface name="\(FakeBlueZ.controlInterface)">

            """
        for method in methods {
            xml += "<method name=\"\(method.name)\">"
            for (index, type) in (DBusSignatureSplitter.completeTypes(method.input)).enumerated() {
                xml += "<arg name=\"arg\(index)\" type=\"\(type)\" direction=\"in\"/>"
            }
            if !method.output.isEmpty { xml += "<arg name=\"result\" type=\"\(method.output)\" direction=\"out\"/>" }
            xml += "</method>\n"
        }
        xml += "</interface><interface name=\"\(DBusStandard.introspectableInterface)\">"
        xml +=
            "<method name=\"Introspect\"><arg name=\"xml\" type=\"s\" direction=\"out\"/></method></interface></node>\n"
        return xml
    }()

    /// Positional arguments, already checked against the method's signature.
    private struct Arguments {
        let values: [DBusValue]

        func string(_ index: Int) -> String { index < values.count ? values[index].stringValue ?? "" : "" }
        func strings(_ index: Int) -> [String] { index < values.count ? values[index].stringArrayValue ?? [] : [] }
        func double(_ index: Int) -> Double { index < values.count ? values[index].doubleValue ?? 0 : 0 }
        func bool(_ index: Int) -> Bool { index < values.count ? values[index].boolValue ?? false : false }
        func uint32(_ index: Int) -> UInt32 { index < values.count ? values[index].uint32Value ?? 0 : 0 }
        func uint64(_ index: Int) -> UInt64 { index < values.count ? values[index].uint64Value ?? 0 : 0 }
        func int16(_ index: Int) -> Int16 { index < values.count ? values[index].int16Value ?? 0 : 0 }
    }
}

/// Splits the control methods' (simple) input signatures into complete types.
enum DBusSignatureSplitter {
    static func completeTypes(_ signature: String) -> [String] {
        var result: [String] = []
        var current = ""
        for character in signature {
            current.append(character)
            if character != "a" {
                result.append(current)
                current = ""
            }
        }
        return result
    }
}

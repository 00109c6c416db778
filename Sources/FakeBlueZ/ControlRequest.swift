import BoardKit
public import DBus
import FoundationEssentials

/// One `boardsim ctl` request: a verb and its arguments, sent to the simulator's control
/// interface (`org.boardbridge.Simulator1` at `/org/boardbridge/sim` on `org.bluez`).
public struct ControlRequest: Equatable, Sendable {
    /// The bus address (`--bus`, else `$DBUS_SYSTEM_BUS_ADDRESS`).
    public var busAddress: String
    /// The verb (`list`, `play`, `drop`…).
    public var verb: String
    /// The positional arguments after the verb.
    public var arguments: [String]
    /// `--pace SECONDS` (play).
    public var pace: Double = 0
    /// `--error NAME` (fail-connects).
    public var error = ConnectOutcome.abort.rawValue
    /// `--charging` (battery).
    public var charging = false
    /// `--reason remote|timeout` (drop).
    public var reason = DisconnectReason.remote.rawValue
    /// `--clear` (writes: empty the log after printing it).
    public var clear = false

    /// The verbs with their smallest and largest positional argument counts.
    static let verbs: [String: ClosedRange<Int>] = [
        "list": 0...0, "play": 2...10_000, "lift": 2...2, "place": 3...3, "knock": 2...2, "reset": 1...2,
        "drop": 1...1, "fail-connects": 2...2, "power": 2...2, "battery": 2...2, "button": 2...2, "rssi": 2...2,
        "present": 2...2, "autoplay": 2...2, "add-board": 1...1, "remove-board": 1...1, "writes": 1...1,
        "violations": 1...1, "board": 1...1, "position": 1...1, "services-changed": 1...1, "lose": 2...2,
        "radio-times": 0...1,
    ]

    /// Parses the words after `ctl`.
    ///
    /// - Throws: ``FakeBlueZError/invalidConfiguration(_:)`` for an unknown verb, a wrong
    ///   argument count or a bad option.
    public static func parse(
        _ words: [String], environment: [String: String]
    ) throws(FakeBlueZError)
        -> ControlRequest
    {
        var request = ControlRequest(busAddress: environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "", verb: "", arguments: [])
        var positional: [String] = []
        var rest = words[...]
        while let word = rest.popFirst() {
            func value() throws(FakeBlueZError) -> String {
                guard let value = rest.popFirst() else { throw .invalidConfiguration("\(word) needs a value") }
                return value
            }
            switch word {
            case "--bus": request.busAddress = try value()
            case "--pace":
                let text = try value()
                request.pace = try SpecificationParser.double(text, key: "--pace")
                guard (0...3600).contains(request.pace) else { throw .invalidValue(key: "--pace", value: text) }
            case "--error": request.error = try value()
            case "--reason": request.reason = try value()
            case "--charging": request.charging = true
            case "--clear": request.clear = true
            default:
                if word.hasPrefix("--") { throw .invalidConfiguration("unknown option '\(word)'") }
                positional.append(word)
            }
        }
        guard let verb = positional.first else { throw .invalidConfiguration("ctl needs a verb") }
        guard let range = verbs[verb] else { throw .invalidConfiguration("unknown verb '\(verb)'") }
        request.verb = verb
        request.arguments = Array(positional.dropFirst())
        guard range.contains(request.arguments.count) else {
            throw .invalidConfiguration("'\(verb)' takes \(range.lowerBound)…\(range.upperBound) arguments")
        }
        guard ConnectOutcome(rawValue: request.error) != nil else {
            throw .invalidValue(key: "--error", value: request.error)
        }
        guard DisconnectReason(rawValue: request.reason) != nil else {
            throw .invalidValue(key: "--reason", value: request.reason)
        }
        guard !request.busAddress.isEmpty else {
            throw .invalidConfiguration("no bus: pass --bus ADDRESS or set DBUS_SYSTEM_BUS_ADDRESS")
        }
        return request
    }

    /// Connects to the bus, sends the request, and returns the lines to print.
    @MainActor
    public func execute() async throws(FakeBlueZError) -> [String] {
        let connection: DBusConnection
        do {
            connection = try await DBusConnection(address: busAddress)
        } catch {
            throw .bus(error)
        }
        defer { connection.close() }
        return try await execute(on: connection)
    }

    /// Sends the request on `connection` and returns the lines to print.
    @MainActor
    public func execute(on connection: DBusConnection) async throws(FakeBlueZError) -> [String] {
        let board = arguments.first ?? ""
        func argument(_ index: Int) -> String { index < arguments.count ? arguments[index] : "" }
        switch verb {
        case "list":
            let adapters = try await call("ListAdapters", [], on: connection)
            let boards = try await call("ListBoards", [], on: connection)
            return JSONLines.records(adapters.first, kind: "adapter") + JSONLines.records(boards.first, kind: "board")
        case "play":
            let moves = Array(arguments.dropFirst())
            let timeout = Duration.seconds(Double(moves.count) * pace * 1.5 + 30)
            _ = try await call(
                "PlayMoves", [.string(board), .strings(moves), .double(pace)], on: connection, timeout: timeout)
        case "lift": _ = try await call("Lift", [.string(board), .string(argument(1))], on: connection)
        case "place":
            _ = try await call("Place", [.string(board), .string(argument(1)), .string(argument(2))], on: connection)
        case "knock": _ = try await call("KnockOver", [.string(board), .string(argument(1))], on: connection)
        case "reset": _ = try await call("SetUp", [.string(board), .string(argument(1))], on: connection)
        case "drop": _ = try await call("DropLink", [.string(board), .string(reason)], on: connection)
        case "fail-connects":
            guard let count = UInt32(argument(1)) else { throw .invalidValue(key: "count", value: argument(1)) }
            _ = try await call("FailConnects", [.string(board), .uint32(count), .string(error)], on: connection)
        case "power":
            let powered = try SpecificationParser.bool(argument(1), key: "power")
            _ = try await call("SetAdapterPowered", [.string(board), .bool(powered)], on: connection)
        case "battery":
            guard let percent = UInt32(argument(1)) else { throw .invalidValue(key: "battery", value: argument(1)) }
            _ = try await call("SetBattery", [.string(board), .uint32(percent), .bool(charging)], on: connection)
        case "button": _ = try await call("PressButton", [.string(board), .string(argument(1))], on: connection)
        case "lose":
            guard let count = UInt32(argument(1)) else { throw .invalidValue(key: "count", value: argument(1)) }
            _ = try await call("LoseNotifications", [.string(board), .uint32(count)], on: connection)
        case "rssi":
            guard let rssi = Int16(argument(1)) else { throw .invalidValue(key: "rssi", value: argument(1)) }
            _ = try await call("SetRSSI", [.string(board), .int16(rssi)], on: connection)
        case "present":
            let present = try SpecificationParser.bool(argument(1), key: "present")
            _ = try await call("SetPresent", [.string(board), .bool(present)], on: connection)
        case "autoplay":
            let pace = argument(1) == "off" ? 0 : try SpecificationParser.double(argument(1), key: "autoplay")
            _ = try await call("SetAutoplay", [.string(board), .double(pace)], on: connection)
        case "add-board":
            return (try await call("AddBoard", [.string(board)], on: connection)).compactMap(\.stringValue)
        case "remove-board": _ = try await call("RemoveBoard", [.string(board)], on: connection)
        case "services-changed": _ = try await call("ChangeServices", [.string(board)], on: connection)
        case "writes":
            let reply = try await call("Writes", [.string(board)], on: connection)
            if clear { _ = try await call("ClearWrites", [.string(board)], on: connection) }
            return JSONLines.writes(reply.first)
        case "violations":
            return [JSONLines.counters(try await call("Violations", [.string(board)], on: connection).first)]
        case "board":
            return (try await call("Placement", [.string(board)], on: connection)).compactMap(\.stringValue)
        case "position":
            return (try await call("Position", [.string(board)], on: connection)).compactMap(\.stringValue)
        case "radio-times":
            let since = arguments.first ?? "0"
            guard let mark = UInt64(since) else { throw .invalidValue(key: "since", value: since) }
            return JSONLines.radioTimes(try await call("RadioTimes", [.uint64(mark)], on: connection).first)
        default:
            throw .invalidConfiguration("unknown verb '\(verb)'")
        }
        return []
    }

    @MainActor
    private func call(
        _ member: String, _ body: [DBusValue], on connection: DBusConnection, timeout: Duration? = nil
    )
        async throws(FakeBlueZError) -> [DBusValue]
    {
        do {
            return try await connection.call(
                destination: FakeBlueZ.busName, path: FakeBlueZ.controlPath, interface: FakeBlueZ.controlInterface,
                member: member, body: body, timeout: timeout)
        } catch {
            throw .bus(error)
        }
    }
}

/// JSON output of `boardsim ctl` (one object per line, keys sorted).
enum JSONLines {
    /// A JSON scalar.
    enum Scalar: Encodable {
        case string(String)
        case integer(Int64)
        case number(Double)
        case bool(Bool)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let value): try container.encode(value)
            case .integer(let value): try container.encode(value)
            case .number(let value): try container.encode(value)
            case .bool(let value): try container.encode(value)
            }
        }

        init?(_ value: DBusValue) {
            switch value.unwrapped {
            case .string(let text), .objectPath(let text): self = .string(text)
            case .bool(let flag): self = .bool(flag)
            case .byte(let number): self = .integer(Int64(number))
            case .int16(let number): self = .integer(Int64(number))
            case .uint16(let number): self = .integer(Int64(number))
            case .int32(let number): self = .integer(Int64(number))
            case .uint32(let number): self = .integer(Int64(number))
            case .int64(let number): self = .integer(number)
            case .double(let number): self = .number(number)
            default: return nil
            }
        }
    }

    static func encode(_ object: [String: Scalar]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(object) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// `aa{sv}` as one object per element, each with `"kind"`.
    static func records(_ value: DBusValue?, kind: String) -> [String] {
        (value?.arrayValue ?? []).compactMap { element in
            guard let properties = element.stringDictionaryValue else { return nil }
            var object = properties.compactMapValues(Scalar.init)
            object["Kind"] = .string(kind)
            return encode(object)
        }
    }

    /// `a(dssay)` as `{"characteristic":…,"hex":…,"time":…,"type":…}` lines.
    static func writes(_ value: DBusValue?) -> [String] {
        (value?.arrayValue ?? []).compactMap { element in
            guard let members = element.structValue, members.count == 4, let time = members[0].doubleValue,
                let characteristic = members[1].stringValue, let type = members[2].stringValue,
                let bytes = members[3].bytesValue
            else { return nil }
            return encode([
                "time": .number((time * 1_000_000).rounded() / 1_000_000), "characteristic": .string(characteristic),
                "type": .string(type), "hex": .string(HexBytes.string(bytes)),
            ])
        }
    }

    /// `a(tssdd)` as `{"address":…,"adapter":…,"connect":…,"discovery":…,"sequence":…}` lines
    /// (no `discovery` for a failed attempt).
    static func radioTimes(_ value: DBusValue?) -> [String] {
        RadioTime.records(in: value).map { time in
            func microseconds(_ seconds: Double) -> Scalar { .number((seconds * 1_000_000).rounded() / 1_000_000) }
            var object: [String: Scalar] = [
                "sequence": .integer(Int64(clamping: time.sequence)), "adapter": .string(time.adapter),
                "address": .string(time.address), "connect": microseconds(time.connect),
            ]
            if let discovery = time.discovery { object["discovery"] = microseconds(discovery) }
            return encode(object)
        }
    }

    /// `a{su}` as one object.
    static func counters(_ value: DBusValue?) -> String {
        encode((value?.stringDictionaryValue ?? [:]).compactMapValues(Scalar.init))
    }
}

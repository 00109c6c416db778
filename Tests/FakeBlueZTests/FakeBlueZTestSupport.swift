import BoardKit
import DBus
import FakeBlueZ
import Foundation
import TestSupport
import Testing

/// Every signal `org.bluez` sends, in wire order.
@MainActor
final class SignalRecorder {
    private(set) var messages: [DBusMessage] = []

    func append(_ message: DBusMessage) {
        messages.append(message)
    }

    /// `(member, path)` of every signal, for failure messages.
    var summary: [String] {
        messages.map { message in
            switch message.member {
            case "PropertiesChanged":
                let names = message.body.count > 1 ? message.body[1].stringDictionaryValue?.keys.sorted() ?? [] : []
                let invalid = message.body.count > 2 ? message.body[2].stringArrayValue ?? [] : []
                return "PC \(message.path) \(names) inv\(invalid)"
            case "InterfacesAdded", "InterfacesRemoved":
                return "\(message.member) \(message.body.first?.objectPathValue ?? "")"
            default:
                return "\(message.member) \(message.path) \(message.body)"
            }
        }
    }

    /// The index of the first signal after `start` satisfying `predicate`.
    func firstIndex(after start: Int = -1, where predicate: (DBusMessage) -> Bool) -> Int? {
        messages.indices.first { $0 > start && predicate(messages[$0]) }
    }

    /// Whether `message` is `InterfacesAdded` for `path`.
    static func isAdded(_ message: DBusMessage, _ path: String) -> Bool {
        message.member == "InterfacesAdded" && message.body.first?.objectPathValue == path
    }

    /// Whether `message` is `InterfacesRemoved` for `path`.
    static func isRemoved(_ message: DBusMessage, _ path: String) -> Bool {
        message.member == "InterfacesRemoved" && message.body.first?.objectPathValue == path
    }

    /// The changed properties if `message` is `PropertiesChanged` of `interface` at `path`.
    static func changes(_ message: DBusMessage, path: String, interface: String) -> [String: DBusValue]? {
        guard message.member == "PropertiesChanged", message.path == path, message.body.count == 3,
            message.body[0].stringValue == interface
        else { return nil }
        return message.body[1].stringDictionaryValue
    }

    /// The invalidated properties if `message` is `PropertiesChanged` of `interface` at `path`.
    static func invalidated(_ message: DBusMessage, path: String, interface: String) -> [String]? {
        guard message.member == "PropertiesChanged", message.path == path, message.body.count == 3,
            message.body[0].stringValue == interface
        else { return nil }
        return message.body[2].stringArrayValue
    }

    /// Whether `message` changes `property` of `interface` at `path` to `value`.
    static func sets(
        _ message: DBusMessage, path: String, interface: String, _ property: String, _ value: DBusValue
    )
        -> Bool
    {
        changes(message, path: path, interface: interface)?[property] == value
    }
}

/// A private bus with an in-process ``FakeBlueZ`` and a client connection that records every
/// signal from `org.bluez`. Torn down by ``close()``.
@MainActor
final class SimFixture {
    static let device = "org.bluez.Device1"
    static let adapter = "org.bluez.Adapter1"
    static let characteristic = "org.bluez.GattCharacteristic1"

    let daemon: PrivateDBusDaemon
    let sim: FakeBlueZ
    let client: DBusConnection
    let signals = SignalRecorder()

    /// Fast timings, no RSSI jitter.
    static let fast = BehaviorConfiguration(
        connectDelay: 0.01, connectTimeout: 0.2, serviceDiscoveryDelay: 0.01, disconnectDelay: 0.01,
        writeResponseDelay: 0.05, advertisingInterval: 0.05, rssiJitter: 0)

    static let chessnut = BoardConfiguration(family: .chessnut, address: "AA:BB:CC:00:00:01", id: "air")
    static let pegasus = BoardConfiguration(family: .dgtPegasus, address: "AA:BB:CC:00:00:02", id: "pegasus")

    init(
        boards: [BoardConfiguration] = [chessnut], adapters: [AdapterConfiguration] = [],
        behavior: BehaviorConfiguration = fast
    ) async throws {
        daemon = try await PrivateDBusDaemon()
        do {
            let server = try await DBusConnection(address: daemon.address)
            sim = try await FakeBlueZ(
                connection: server,
                configuration: FakeBlueZConfiguration(adapters: adapters, boards: boards, behavior: behavior))
            client = try await DBusConnection(address: daemon.address)
            let recorder = signals
            _ = try await client.subscribe(DBusMatchRule(sender: FakeBlueZ.busName)) { recorder.append($0) }
        } catch {
            daemon.stop()
            throw error
        }
    }

    func close() {
        sim.shutDown()
        client.close()
        sim.connection.close()
        daemon.stop()
    }

    /// The device path of a board address on hci0.
    static func devicePath(_ address: String, adapter: String = "hci0") -> String {
        "/org/bluez/\(adapter)/dev_" + address.replacingOccurrences(of: ":", with: "_")
    }

    func call(
        _ path: String, _ interface: String, _ member: String, _ body: [DBusValue] = [],
        on connection: DBusConnection? = nil
    ) async throws(DBusError) -> [DBusValue] {
        try await (connection ?? client).call(
            destination: FakeBlueZ.busName, path: path, interface: interface, member: member, body: body)
    }

    func property(_ name: String, _ interface: String, _ path: String) async throws(DBusError) -> DBusValue {
        try await client.property(name, interface: interface, path: path, destination: FakeBlueZ.busName)
    }

    func managedObjects() async throws(DBusError) -> [String: [String: [String: DBusValue]]] {
        try await client.managedObjects(destination: FakeBlueZ.busName)
    }

    /// Starts discovery on hci0 and waits until the device of `address` exists.
    @discardableResult
    func discover(
        _ address: String, adapter: String = "hci0", on connection: DBusConnection? = nil
    ) async throws
        -> String
    {
        let path = Self.devicePath(address, adapter: adapter)
        _ = try await call("/org/bluez/\(adapter)", Self.adapter, "StartDiscovery", on: connection)
        let found = await eventually { self.signals.firstIndex { SignalRecorder.isAdded($0, path) } != nil }
        try #require(found, "no InterfacesAdded for \(path): \(signals.summary)")
        return path
    }

    /// Discovers, stops discovery and connects; waits for `ServicesResolved=true`.
    @discardableResult
    func connect(_ address: String) async throws -> String {
        let path = try await discover(address)
        _ = try await call("/org/bluez/hci0", Self.adapter, "StopDiscovery")
        _ = try await call(path, Self.device, "Connect")
        let resolved = await eventually {
            self.signals.firstIndex {
                SignalRecorder.sets($0, path: path, interface: Self.device, "ServicesResolved", .bool(true))
            } != nil
        }
        try #require(resolved, "ServicesResolved never came: \(signals.summary)")
        return path
    }

    /// The characteristic path of `uuid` under `device`, from `GetManagedObjects`.
    func characteristicPath(_ uuid: String, device: String) async throws -> String {
        let objects = try await managedObjects()
        let match = objects.first { path, interfaces in
            path.hasPrefix(device + "/") && interfaces[Self.characteristic]?["UUID"]?.stringValue == uuid
        }
        return try #require(match?.key, "no characteristic \(uuid)")
    }
}

/// Barriers for tests that must act while a call is pending, or check that nothing was
/// signalled, without waiting a fixed time (issue #28).
extension SimFixture {
    /// Sends `member` from a task of its own and returns that task (the call's error, `nil`
    /// on success) once the simulator has handled the call: `monitor` saw the bus daemon
    /// route it to `org.bluez`, and a `GetManagedObjects` sent afterwards came back. The
    /// daemon hands the simulator its messages in the order it routes them and the simulator
    /// handles each at once, so the call was handled (and is pending, if it is answered
    /// later) before that reply; whatever the test does next finds it so.
    func callInFlight(
        _ path: String, _ interface: String, _ member: String, _ body: [DBusValue] = [], monitor: BusMonitor
    ) async throws -> Task<DBusError?, Never> {
        let isCall = { (message: BusMonitor.Message) in
            message.kind == "method call" && message.field("destination") == FakeBlueZ.busName
                && message.field("path") == path && message.field("member") == member
        }
        let before = monitor.messages.filter(isCall).count
        let task = Task { @MainActor in
            await capturedError { _ = try await self.call(path, interface, member, body) }
        }
        let routed = await eventually(timeout: .seconds(60)) { monitor.messages.filter(isCall).count > before }
        try #require(routed, "\(member) on \(path) never reached the bus: \(monitor.messages.map(\.header))")
        _ = try await managedObjects()
        return task
    }

    /// Waits for `rounds` more advertisement rounds of `board`'s adapter (discovering, `board`
    /// reported): each time moves its RSSI by 20 dBm and waits for the signalled change. A
    /// round reports the boards in the order they were added and the tree signals in that
    /// order, so whatever a round signalled for an earlier board is received before `board`'s
    /// RSSI change: after this, a check that an earlier board was not reported covers those
    /// rounds.
    func advertisingRounds(_ rounds: Int, counter board: String) async throws {
        let path = try sim.status(of: board).path
        let seen = await eventually(timeout: .seconds(60)) {
            self.signals.firstIndex { SignalRecorder.isAdded($0, path) } != nil
        }
        try #require(seen, "\(board) was never reported: \(signals.summary)")
        for _ in 0..<rounds {
            let current = try sim.status(of: board).rssi
            let target = current > -60 ? current - 20 : current + 20
            let start = signals.messages.count - 1
            try sim.setRSSI(board: board, target)
            let reported = await eventually(timeout: .seconds(60)) {
                self.signals.firstIndex(after: start) {
                    SignalRecorder.sets($0, path: path, interface: Self.device, "RSSI", .int16(Int16(target)))
                } != nil
            }
            try #require(reported, "no RSSI \(target) for \(board): \(signals.summary)")
        }
    }
}

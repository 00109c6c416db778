import Adapters
import BlueZ
import DBus
import Foundation
import MQTT
import MainLoop
import TestSupport

/// The end-to-end floor under section 3's move latency (#33): the same processes and hops
/// as the bridge's path — boardsim → a forwarder in the bench → mosquitto → the rig's
/// subscriber — with nothing in the forwarder but what any bridge must do. It takes the
/// first board's notification socket from boardsim as the bridge does (`Device1.Connect`,
/// `AcquireNotify` on the Chessnut state characteristic, realtime mode on), waits on it in
/// the same loop (``DescriptorWatch``), reads each datagram and, when the frame's board bytes
/// changed, publishes a fixed payload the size of a move message at QoS 1 through the same
/// MQTT wrapper (``MQTTClient``). Measured before the bridge starts, then the board is
/// disconnected and put back as it was.
@MainActor
enum ForwarderFloor {
    /// The forwarded topic.
    static let topic = "bench/forward/b01"
    /// The forwarded payload's size: about a move message's (`boardbridge/<board>/move`).
    static let payloadSize = 232
    /// A Chessnut state frame: `01 24`, 32 board bytes, then an uptime that changes every
    /// second (left out of the comparison).
    static let boardBytes = 34

    /// Plays `placements` placements on the first board (a pawn back and forth between e2
    /// and e4, an even number: the board ends as it began) and returns the latency of each,
    /// from boardsim's emit of the frame to the subscriber's arrival of the forwarded message.
    static func measure(rig: BridgeRig, placements: Int) async throws -> [Double] {
        guard let control = rig.control else { throw BenchError(description: "the rig is not started") }
        let adapter = BlueZNames.root + "/" + rig.adapter(of: 0)
        let device = BlueZPath.devicePath(adapterPath: adapter, address: rig.address(of: 0))
        let outcome: Result<[Double], any Error>
        do {
            outcome = .success(
                try await forward(
                    rig: rig, adapter: adapter, device: device, control: control,
                    placements: placements + placements % 2))
        } catch {
            outcome = .failure(error)
        }
        // The bridge connects to every board next: this link goes first, whatever happened.
        _ = try? await call(control, device, BlueZNames.deviceInterface, "Disconnect")
        return try outcome.get()
    }

    private static func forward(
        rig: BridgeRig, adapter: String, device: String, control: DBusConnection, placements: Int
    ) async throws -> [Double] {
        guard let broker = rig.broker, let subscriber = rig.subscriber else {
            throw BenchError(description: "the rig is not started")
        }
        // As BlueZ does, the device is known once discovery has seen it advertise.
        _ = try await call(control, adapter, BlueZNames.adapterInterface, "StartDiscovery")
        try await waitUntil("boardsim showing \(device)", timeout: .seconds(20), every: .milliseconds(20)) {
            (try? await control.managedObjects(destination: BlueZNames.service))?[device] != nil
        }
        _ = try await call(control, adapter, BlueZNames.adapterInterface, "StopDiscovery")
        _ = try await call(control, device, BlueZNames.deviceInterface, "Connect", timeout: .seconds(30))
        let (state, write) = try await characteristics(of: device, control: control)
        let acquired = try await call(
            control, state, BlueZNames.characteristicInterface, "AcquireNotify", [.propertyDictionary([:])])
        guard let descriptor = acquired.first?.unixFDValue, descriptor >= 0 else {
            throw BenchError(description: "AcquireNotify replied \(acquired)")
        }

        var configuration = try MQTTConfiguration(url: broker.url, clientID: "bench-forwarder-\(getpid())")
        configuration.reconnect = MQTTReconnectPolicy(minimumDelay: .milliseconds(100), maximumDelay: .seconds(1))
        let forwarder = try MQTTClient(configuration: configuration)
        defer { forwarder.stop() }
        forwarder.start()
        let payload = [UInt8](repeating: UInt8(ascii: "x"), count: payloadSize)
        var last: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        let watch = DescriptorWatch(descriptor: descriptor, closesDescriptor: true) {
            while true {
                let count = buffer.withUnsafeMutableBytes {
                    recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
                }
                guard count > 0 else { return }
                let board = Array(buffer[0..<min(count, boardBytes)])
                guard board != last else { continue }
                last = board
                try? forwarder.publish(MQTTMessage(topic: topic, payload: payload, qos: .atLeastOnce))
            }
        }
        defer { watch.cancel() }

        var arrivals: [UInt64] = []
        rig.onMessage = { message, _ in
            if message.topic == topic { arrivals.append(BootClock.nanoseconds()) }
        }
        defer { rig.onMessage = nil }
        try subscriber.subscribe("bench/forward/#", qos: .atLeastOnce)
        defer { subscriber.unsubscribe("bench/forward/#") }
        try await waitUntil("the forwarder connected") { forwarder.state.isConnected && subscriber.isSubscribed }
        // Realtime mode on: the board's first frame is forwarded (it differs from none).
        _ = try await call(
            control, write, BlueZNames.characteristicInterface, "WriteValue",
            [.array("y", [0x21, 0x01, 0x00].map(DBusValue.byte)), .propertyDictionary([:])])
        try await waitUntil("the first frame forwarded") { !arrivals.isEmpty }

        var samples: [Double] = []
        let board = rig.boardIDs[0]
        for index in 0..<placements {
            let (from, to) = index % 2 == 0 ? ("e2", "e4") : ("e4", "e2")
            var before = arrivals.count
            try await rig.controlCall("Lift", [board, from])
            try await waitUntil("the lift forwarded") { arrivals.count > before }
            before = arrivals.count
            let reply = try await rig.controlCall("Place", [board, to, "P"])
            let emitted = reply.first?.uint64Value ?? 0
            try await waitUntil("the placement forwarded") { arrivals.count > before }
            if emitted > 0, arrivals[before] >= emitted { samples.append(Double(arrivals[before] - emitted) / 1e9) }
            try await Task.sleep(for: .milliseconds(10))
        }
        return samples
    }

    /// The Chessnut state and write characteristics under `device`, once BlueZ lists them
    /// (read through the bridge's own model of BlueZ's objects).
    private static func characteristics(
        of device: String, control: DBusConnection
    ) async throws -> (state: String, write: String) {
        var found: (state: String, write: String)?
        try await waitUntil(
            "boardsim listing the Chessnut characteristics of \(device)", timeout: .seconds(20),
            every: .milliseconds(20)
        ) {
            guard let objects = try? await control.managedObjects(destination: BlueZNames.service) else { return false }
            var model = BlueZObjectModel()
            _ = model.load(objects)
            let listed = model.characteristics.values.filter { BlueZPath.devicePath(of: $0.path) == device }
            func path(_ uuid: String) -> String? { listed.first { $0.uuid == uuid }?.path }
            guard let state = path(ChessnutAdapter.stateCharacteristicUUID),
                let write = path(ChessnutAdapter.writeCharacteristicUUID)
            else { return false }
            found = (state, write)
            return true
        }
        guard let found else { throw BenchError(description: "no Chessnut characteristics under \(device)") }
        return found
    }

    /// A call to boardsim's `org.bluez`.
    private static func call(
        _ control: DBusConnection, _ path: String, _ interface: String, _ member: String, _ body: [DBusValue] = [],
        timeout: Duration = .seconds(10)
    ) async throws -> [DBusValue] {
        try await control.call(
            destination: BlueZNames.service, path: path, interface: interface, member: member, body: body,
            timeout: timeout)
    }

    /// Waits until `condition` holds, looking `every` so often (TestSupport's
    /// `eventuallyAsync`); throws naming `what` when it does not.
    private static func waitUntil(
        _ what: String, timeout: Duration = .seconds(10), every interval: Duration = .milliseconds(1),
        _ condition: () async -> Bool
    ) async throws {
        guard await eventuallyAsync(timeout: timeout, every: interval, condition) else {
            throw BenchError(description: "forwarder floor: \(what) timed out")
        }
    }
}

import Adapters
import BlueZ
import BoardKit
import BoardLink
import Foundation
import TestSupport
import Testing

/// Records a transport's status changes.
@MainActor
final class StatusRecorder {
    private(set) var statuses: [BoardLinkStatus] = []

    init(_ transport: BlueZBoardTransport) {
        transport.onStatusChange = { [weak self] in self?.statuses.append($0) }
    }

    var states: [BoardTransportState] {
        var result: [BoardTransportState] = []
        for status in statuses where result.last != status.state { result.append(status.state) }
        return result
    }
}

@MainActor
@Suite(.serialized, .enabled(if: TestTools.available("dbus-daemon")))
struct BlueZReconnectTests {
    @Test func aDroppedLinkReconnectsWithThePolicyAndTheGameContinues() async throws {
        // Resent only when an ack is over 2 s late: at the real board's 0.3 s, a machine
        // running the suite in parallel can answer late, and the wave of retransmissions
        // then reaches past the adapter's two-move window (see ChessUpRetransmissionFilter).
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.chessUp + ",retransmit=2"])
        defer { fixture.stop() }
        fixture.manager.start()
        let policy = BoardReconnectPolicy(maxAttempts: 4, delays: [0.3, 0.5])
        let transport = try fixture.transport(.chessUp, policy: policy)
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        let statuses = StatusRecorder(transport)
        transport.start()
        #expect(await eventually { recorder.events.contains(.ready) })
        #expect(await eventually { transport.isWriterIdle })
        try await fixture.clearWrites("chessup")
        let game = SimulatedBoards.randomGame(plies: 12, seed: 3)
        try await fixture.play("chessup", Array(game.prefix(6)), pace: 0.05)
        #expect(await eventually { recorder.moves.count == 6 })
        // This drop comes after every move is acknowledged, and the board has the acks: an
        // ack still on its way when the link drops leaves its move outstanding, and the board
        // sends it again on the new link (a drop in the middle of a move, another case). The
        // host's writer being idle is not enough: its last writes may not have reached the
        // board yet. The acks (`21`, several in one write when paced) are counted where the
        // board received them.
        var acks = 0
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while acks < 6, clock.now < deadline {
            let writes = try await fixture.writes("chessup")
            acks = writes.filter { $0.bytes.allSatisfy { $0 == 0x21 } }.reduce(0) { $0 + $1.bytes.count }
            if acks < 6 { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(acks == 6)
        try await fixture.clearWrites("chessup")

        try await fixture.drop("chessup")
        let back = await eventually { recorder.count { $0 == .ready } == 2 }
        #expect(back, "events \(recorder.events)\n\(fixture.log.text)")
        let drops = recorder.events.filter { if case .disconnected = $0 { true } else { false } }
        #expect(drops.count == 1)
        if case .disconnected(let error) = drops.first { #expect(error != nil) }
        #expect(statuses.states.contains(.reconnecting(attempt: 1)))
        let waiting = statuses.statuses.first { $0.state == .reconnecting(attempt: 1) && $0.nextDelay != nil }
        #expect(waiting?.nextDelay == 0.3)
        #expect(waiting?.maxAttempts == 4)
        #expect(waiting?.reconnectAttempt == 1)
        #expect(transport.state == .connected)
        #expect(transport.status.reconnectAttempt == nil)

        // The reconnect handshake, and nothing else first.
        let adapter = try AdapterFactory.makeAdapter(for: .chessUp)
        let expected = adapter.handshakeCommands(isReconnect: true).compactMap { adapter.encode($0.command) }
        var writes: [SimulatedWrite] = []
        for _ in 0..<200 where writes.count < expected.count {
            try await Task.sleep(for: .milliseconds(20))
            writes = try await fixture.writes("chessup")
        }
        #expect(writes.prefix(expected.count).map(\.bytes) == expected.map { Array($0) })

        // The game goes on.
        try await fixture.play("chessup", Array(game.suffix(6)), pace: 0.05)
        let continued = await eventually { recorder.moves.count == 12 }
        #expect(continued, "\(recorder.moves.map(\.uci))")
        #expect(recorder.moves.map(\.uci) == game)
        transport.disconnect()
    }

    @Test func afterMaxAttemptsFailuresTheStateIsDisconnected() async throws {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.chessnut])
        defer { fixture.stop() }
        fixture.manager.start()
        let transport = try fixture.transport(.chessnut, policy: BoardReconnectPolicy(maxAttempts: 2, delays: [0.1]))
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        let statuses = StatusRecorder(transport)
        transport.start()
        #expect(await eventually { recorder.events.contains(.ready) })
        try await fixture.failConnects("chessnut", count: 20, error: "io-error")
        try await fixture.drop("chessnut")
        let gaveUp = await eventually { transport.state == .disconnected }
        #expect(gaveUp, "states \(statuses.states)\n\(fixture.log.text)")
        #expect(statuses.states.suffix(3) == [.reconnecting(attempt: 1), .reconnecting(attempt: 2), .disconnected])
        #expect(transport.lastError?.contains("Input/output error") == true, "\(transport.lastError ?? "nil")")
        #expect(transport.status.reconnectAttempt == nil)
        #expect(recorder.count { if case .disconnected = $0 { true } else { false } } == 1)
        #expect(fixture.log.contains("giving up after 2 reconnect attempt(s)", level: .error))
        // start() picks it up again once the board accepts connects.
        try await fixture.failConnects("chessnut", count: 0, error: "success")
        transport.start()
        #expect(await eventually { recorder.count { $0 == .ready } == 2 })
        transport.disconnect()
    }

    @Test(arguments: [
        ("in-progress", 2), ("abort", 2), ("already", 2), ("canceled", 1), ("old-abort", 2), ("timeout", 1),
    ])
    func transientConnectErrorsAreRetried(error: String, count: Int) async throws {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.squareOff])
        defer { fixture.stop() }
        fixture.manager.start()
        #expect(await fixture.manager.waitUntilReady(timeout: 20))
        try await fixture.failConnects("squareoff", count: count, error: error)
        let transport = try fixture.transport(.squareOff)
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        let statuses = StatusRecorder(transport)
        transport.start()
        let ready = await eventually(timeout: .seconds(30)) { recorder.events.contains(.ready) }
        #expect(ready, "\(fixture.log.text)")
        #expect(fixture.log.contains("retry 1/3"), "\(fixture.log.text)")
        #expect(!statuses.states.contains { if case .reconnecting = $0 { true } else { false } })
        #expect(transport.state == .connected)
        transport.disconnect()
    }

    @Test func eightBoardsOnTwoAdaptersAtOnce() async throws {
        let families: [BoardFamily] = [
            .chessnut, .chessUp, .squareOff, .dgtPegasus, .millennium, .chessnut, .chessUp, .squareOff,
        ]
        let boards = families.enumerated().map { index, family in
            let adapter = index % 2 == 0 ? "hci0" : "hci1"
            let name = SimulatedBoards.name(family)
            return
                "id=b\(index),family=\(family.rawValue),name=\(name),address=BB:00:00:00:00:0\(index),adapter=\(adapter)"
        }
        let fixture = try await SimulatorFixture(boards: boards, adapters: ["hci0", "hci1"])
        defer { fixture.stop() }
        fixture.manager.start()
        let transports = try families.enumerated().map { index, family in
            try fixture.transport(family, .address("BB:00:00:00:00:0\(index)"), label: "b\(index)")
        }
        let recorders = transports.map { EventRecorder($0.events) }
        defer { for recorder in recorders { recorder.stop() } }
        for transport in transports { transport.start() }
        let all = await eventually(timeout: .seconds(45)) { recorders.allSatisfy { $0.events.contains(.ready) } }
        #expect(all, "states \(transports.map(\.state))\n\(fixture.log.text)")
        for (index, transport) in transports.enumerated() {
            #expect(transport.state == .connected)
            #expect(transport.status.adapter == (index % 2 == 0 ? "hci0" : "hci1"))
            #expect(transport.status.deviceAddress == "BB:00:00:00:00:0\(index)")
        }
        #expect(fixture.manager.linkCount(onAdapter: "/org/bluez/hci0") == 4)
        #expect(fixture.manager.linkCount(onAdapter: "/org/bluez/hci1") == 4)
        for index in families.indices {
            let violations = try await fixture.violations("b\(index)")
            #expect(violations["total"] == 0, "b\(index): \(violations)")
        }
        for transport in transports { transport.disconnect() }
        #expect(fixture.manager.linkCount(onAdapter: "/org/bluez/hci0") == 0)
    }

    @Test func twoTransportsOfOneFamilyTakeDifferentBoards() async throws {
        let boards = [
            "id=n1,family=chessnut,name=Chessnut Air,address=CC:00:00:00:00:01",
            "id=n2,family=chessnut,name=Chessnut Air,address=CC:00:00:00:00:02",
        ]
        let fixture = try await SimulatorFixture(boards: boards)
        defer { fixture.stop() }
        fixture.manager.start()
        let first = try fixture.transport(.chessnut, .namePattern(try #require(GlobPattern("chessnut*"))))
        let second = try fixture.transport(.chessnut, .any)
        first.start()
        second.start()
        #expect(await eventually { first.state == .connected && second.state == .connected })
        #expect(first.status.deviceAddress != nil)
        #expect(first.status.deviceAddress != second.status.deviceAddress)
        first.disconnect()
        second.disconnect()
    }
}

@MainActor
@Suite(.serialized, .enabled(if: TestTools.available("dbus-daemon")))
struct BlueZLifecycleTests {
    @Test func discoveryIsCountedAcrossClaims() async throws {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.chessnut])
        defer { fixture.stop() }
        fixture.manager.start()
        #expect(await fixture.manager.waitUntilReady(timeout: 20))
        let first = fixture.manager.startDiscovery()
        let second = fixture.manager.startDiscovery(adapter: "hci0")
        #expect(await eventually { fixture.manager.adapters.first?.discovering == true })
        first.stop()
        // A StopDiscovery for the first claim would leave in a task stop() enqueues; this
        // call on the manager's connection leaves after it, so boardsim has handled it by
        // the time it answers (with the adapter's Discovering).
        let discovering = try await fixture.manager.callAfterQueuedWork(
            path: "/org/bluez/hci0", interface: "org.freedesktop.DBus.Properties", member: "Get",
            body: [.string("org.bluez.Adapter1"), .string("Discovering")])
        #expect(discovering.first?.variantValue?.boolValue == true)
        #expect(try await fixture.adapter("hci0")["Discovering"]?.boolValue == true)
        second.stop()
        #expect(await eventually { fixture.manager.adapters.first?.discovering == false })
        #expect(try await fixture.adapter("hci0")["Sessions"]?.uint32Value == 0)
    }

    @Test func reconnectWorksWithoutAGATTCache() async throws {
        let behavior = SimulatorFixture.behavior.replacingOccurrences(
            of: #""connectTimeout": 1"#, with: #""connectTimeout": 1, "gattCache": false"#)
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.squareOff], behavior: behavior)
        defer { fixture.stop() }
        fixture.manager.start()
        let transport = try fixture.transport(.squareOff)
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        transport.start()
        #expect(await eventually { recorder.events.contains(.ready) })
        try await fixture.drop("squareoff")
        let back = await eventually { recorder.count { $0 == .ready } == 2 }
        #expect(back, "\(recorder.events)\n\(fixture.log.text)")
        await transport.close()
    }

    @Test func closeWaitsUntilBlueZDisconnected() async throws {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.chessUp])
        defer { fixture.stop() }
        fixture.manager.start()
        let transport = try fixture.transport(.chessUp)
        transport.start()
        #expect(await eventually { transport.state == .connected })
        #expect(try await fixture.board("chessup")["Connected"]?.boolValue == true)
        await transport.close()
        #expect(transport.state == .disconnected)
        #expect(try await fixture.board("chessup")["Connected"]?.boolValue == false)
    }

    @Test func aReconnectNeverSwitchesToAnotherBoard() async throws {
        let boards = [
            "id=n1,family=chessnut,name=Chessnut Air,address=CC:00:00:00:00:01,rssi=-40",
            "id=n2,family=chessnut,name=Chessnut Air,address=CC:00:00:00:00:02,rssi=-70",
        ]
        let fixture = try await SimulatorFixture(boards: boards)
        defer { fixture.stop() }
        fixture.manager.start()
        var settings = SimulatorFixture.settings
        settings.rediscoveryTimeout = 0.5
        let transport = try fixture.transport(
            .chessnut, policy: BoardReconnectPolicy(maxAttempts: 2, delays: [0.1]), settings: settings)
        transport.start()
        #expect(await eventually { transport.state == .connected })
        let address = try #require(transport.status.deviceAddress)
        let id = address == "CC:00:00:00:00:01" ? "n1" : "n2"
        let other = id == "n1" ? "n2" : "n1"
        try await fixture.removeBoard(id)
        #expect(await eventually { transport.state == .disconnected })
        #expect(transport.lastError?.contains("board \(address) not seen") == true, "\(transport.lastError ?? "")")
        #expect(try await fixture.board(other)["Connected"]?.boolValue == false)
    }
}

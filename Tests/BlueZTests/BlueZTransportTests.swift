import Adapters
import BlueZ
import BoardKit
import Chess
import Foundation
import TestSupport
import Testing

/// Boards of every family, one line each (`boardsim --board`), with ids for the control API.
enum SimulatedBoards {
    static let chessnut = "id=chessnut,family=chessnut,name=Chessnut Air,address=AA:00:00:00:00:01"
    static let chessUp = "id=chessup,family=chessup,name=ChessUp,address=AA:00:00:00:00:02"
    static let squareOff = "id=squareoff,family=squareoff,name=Squareoff Pro,address=AA:00:00:00:00:03"
    static let pegasus = "id=pegasus,family=pegasus,name=DGT_Pegasus_1,address=AA:00:00:00:00:04"
    static let millennium = "id=millennium,family=millennium,name=MILLENNIUM CHESS,address=AA:00:00:00:00:05"

    static let ichessone = "id=ichessone,family=ichessone,name=iChessOne,address=AA:00:00:00:00:06"

    static let cpp = "id=cpp,family=cpp,name=CPP Board,address=AA:00:00:00:00:07"

    static let all = [chessnut, chessUp, squareOff, pegasus, millennium, ichessone, cpp]

    static func specification(_ family: BoardFamily) -> String {
        switch family {
        case .chessnut: chessnut
        case .chessUp: chessUp
        case .squareOff: squareOff
        case .dgtPegasus: pegasus
        case .millennium: millennium
        case .iChessOne: ichessone
        case .chessPeripheral: cpp
        case .dgt, .certabo, .sentio: preconditionFailure("\(family) is no Bluetooth LE board")
        }
    }

    static func id(_ family: BoardFamily) -> String { field("id", of: specification(family)) }
    static func name(_ family: BoardFamily) -> String { field("name", of: specification(family)) }
    static func address(_ family: BoardFamily) -> String { field("address", of: specification(family)) }

    static func field(_ key: String, of specification: String) -> String {
        for pair in specification.split(separator: ",") where pair.hasPrefix(key + "=") {
            return String(pair.dropFirst(key.count + 1))
        }
        return ""
    }

    /// `plies` random legal moves from the start (no promotions), the same for the same seed.
    static func randomGame(plies: Int, seed: UInt64) -> [String] {
        var generator = SeededGenerator(seed: seed)
        var position = Position.starting
        var moves: [String] = []
        while moves.count < plies {
            let candidates = position.legalMoves().filter { $0.promotion == nil }
            guard let move = candidates.randomElement(using: &generator) else {
                return randomGame(plies: plies, seed: seed &+ 1)
            }
            moves.append(move.uci)
            position = position.applying(move)
        }
        return moves
    }
}

@MainActor
@Suite(.serialized, .enabled(if: TestTools.available("dbus-daemon")))
struct BlueZTransportTests {
    @Test func scanFindsEveryBoardWithItsFamily() async throws {
        let fixture = try await SimulatorFixture(boards: SimulatedBoards.all)
        defer { fixture.stop() }
        fixture.manager.start()
        #expect(await fixture.manager.waitUntilReady(timeout: 20))
        let transports = try BoardFamily.bluetoothLE.map { try fixture.transport($0) }
        for transport in transports { transport.startScan() }
        let found = await eventually { transports.allSatisfy { $0.discovered.count == 1 } }
        #expect(found, "discovered: \(transports.map(\.discovered))\n\(fixture.log.text)")
        for (family, transport) in zip(BoardFamily.bluetoothLE, transports) {
            let device = try #require(transport.discovered.first)
            #expect(device.name == SimulatedBoards.name(family))
            #expect(device.id == BlueZDeviceID.uuid(adapter: "hci0", address: SimulatedBoards.address(family)))
            #expect(device.token.hasPrefix("/org/bluez/hci0/dev_AA_00_00_00_00_0"))
            #expect(device.rssi < 0)
            #expect(transport.state == .scanning)
        }
        let families = Dictionary(
            uniqueKeysWithValues: fixture.manager.discoveredBoards.map { ($0.address, $0.family) })
        for family in BoardFamily.bluetoothLE {
            #expect(families[SimulatedBoards.address(family)] == family)
        }
        for transport in transports { transport.stopScan() }
        #expect(transports.allSatisfy { $0.state == .idle })
    }

    @Test func aServiceUUIDFilterReportsOnlyBoardsAdvertisingIt() async throws {
        // Pegasus advertises the Nordic UART service; the Chessnut advertises nothing.
        let uart = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
        let fixture = try await SimulatorFixture(
            boards: [SimulatedBoards.chessnut, SimulatedBoards.pegasus + ",uuids=\(uart)"],
            settings: BlueZManagerSettings(discoveryUUIDs: [uart], busRetryDelays: [0.1, 0.2, 0.5]))
        defer { fixture.stop() }
        fixture.manager.start()
        #expect(await fixture.manager.waitUntilReady(timeout: 20))
        try await expectPegasusFoundButNotChessnut(fixture)
        #expect(!fixture.manager.discoveredBoards.contains { $0.family == .chessnut })
    }

    /// Scans for a Pegasus and a Chessnut (transports without an adapter of their own):
    /// the Pegasus is found, and after a later advertising round still no Chessnut.
    private func expectPegasusFoundButNotChessnut(_ fixture: SimulatorFixture) async throws {
        let pegasus = try fixture.transport(.dgtPegasus)
        let chessnut = try fixture.transport(.chessnut)
        pegasus.startScan()
        chessnut.startScan()
        #expect(await eventually { pegasus.discovered.count == 1 }, "\(fixture.log.text)")
        // Move the Pegasus's signal far away and wait until its scan shows it: a round of
        // advertisements boardsim sends after the one that found the Pegasus. Each round
        // reports every board its adapter's sessions accept, and boardsim's signals arrive
        // in order, so a Chessnut report from the first round has arrived by now.
        let before = Int(try #require(pegasus.discovered.first).rssi)
        let target = before > -70 ? -100 : -30
        try await fixture.call("SetRSSI", [.string("pegasus"), .int16(Int16(target))])
        let moved = await eventually {
            pegasus.discovered.first.map { abs(Int($0.rssi) - target) <= 10 } ?? false
        }
        #expect(moved, "\(pegasus.discovered)\n\(fixture.log.text)")
        #expect(chessnut.discovered.isEmpty)
    }

    @Test func adaptersNotListedAreNeitherScannedNorUsed() async throws {
        let fixture = try await SimulatorFixture(
            boards: [SimulatedBoards.chessnut + ",adapter=hci0", SimulatedBoards.pegasus + ",adapter=hci1"],
            adapters: ["hci0", "hci1"],
            settings: BlueZManagerSettings(adapters: ["hci1"], busRetryDelays: [0.1, 0.2, 0.5]))
        defer { fixture.stop() }
        fixture.manager.start()
        #expect(await fixture.manager.waitUntilReady(timeout: 20))
        #expect(fixture.manager.adapters.map(\.name) == ["hci1"])
        // Only hci1's board is found.
        try await expectPegasusFoundButNotChessnut(fixture)
        // boardsim's view: discovery runs on hci1 only.
        let listed = try await fixture.call("ListAdapters")
        var discovering: [String: Bool] = [:]
        for entry in listed.first?.arrayValue ?? [] {
            guard let fields = entry.stringDictionaryValue,
                let name = (fields["Name"]?.variantValue ?? fields["Name"])?.stringValue
            else { continue }
            discovering[name] = (fields["Discovering"]?.variantValue ?? fields["Discovering"])?.boolValue
        }
        #expect(discovering == ["hci0": false, "hci1": true])
    }

    @Test(arguments: BoardFamily.bluetoothLE)
    func handshakeReachesTheBoardInOrderWithItsDelays(family: BoardFamily) async throws {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.specification(family)])
        defer { fixture.stop() }
        fixture.manager.start()
        let transport = try fixture.transport(family)
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        transport.start()
        let ready = await eventually { recorder.events.contains(.ready) }
        #expect(ready, "events \(recorder.events)\n\(fixture.log.text)")
        #expect(recorder.events.first == .connected)
        #expect(transport.state == .connected)
        #expect(transport.connectedDeviceName == SimulatedBoards.name(family))

        let adapter = try AdapterFactory.makeAdapter(
            for: family, options: AdapterOptions(advertisedName: SimulatedBoards.name(family)))
        var expected: [(bytes: [UInt8], gap: Double)] = []
        var carried = 0.0
        for step in adapter.handshakeCommands(isReconnect: false) {
            guard let bytes = adapter.encode(step.command) else {
                carried += step.delayBefore
                continue
            }
            expected.append((Array(bytes), max(carried + step.delayBefore, adapter.minimumWriteInterval)))
            carried = 0
        }
        var writes: [SimulatedWrite] = []
        for _ in 0..<200 {
            writes = try await fixture.writes(SimulatedBoards.id(family))
            if writes.count >= expected.count { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        try #require(writes.count >= expected.count, "writes \(writes)")
        #expect(writes.prefix(expected.count).map(\.bytes) == expected.map(\.bytes))
        let profile = AdapterFactory.profile(for: family, advertisedName: SimulatedBoards.name(family))
        #expect(writes.allSatisfy { $0.characteristic == profile.writeCharacteristicUUID })
        #expect(writes.allSatisfy { $0.type == profile.writeType.rawValue })
        for index in 1..<expected.count {
            let gap = writes[index].time - writes[index - 1].time
            #expect(gap >= expected[index].gap - 0.001, "step \(index): \(gap) s < \(expected[index].gap) s")
        }
        let violations = try await fixture.violations(SimulatedBoards.id(family))
        #expect(violations["total"] == 0, "\(violations)")
        transport.disconnect()
        #expect(transport.state == .disconnected)
        #expect(await eventually { recorder.events.last == .disconnected(error: nil) })
    }

    @Test func tenLEDCommandsAtOnceKeepTheChessnutWriteFloor() async throws {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.chessnut])
        defer { fixture.stop() }
        fixture.manager.start()
        let transport = try fixture.transport(.chessnut)
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        #expect(!transport.canSend(.requestState), "no link yet")
        transport.start()
        #expect(await eventually { recorder.events.contains(.ready) && transport.isWriterIdle })
        // The linked Chessnut Air has LEDs, no motors.
        #expect(transport.canSend(.indicate(squares: [.e2], style: .move)))
        #expect(!transport.canSend(.executeMove(uci: "e2e4")))
        try await fixture.clearWrites("chessnut")
        for index in 0..<10 {
            transport.send(.indicate(squares: [Square.allCases[index], Square.allCases[63 - index]], style: .move))
        }
        var writes: [SimulatedWrite] = []
        for _ in 0..<300 where writes.count < 10 {
            try await Task.sleep(for: .milliseconds(50))
            writes = try await fixture.writes("chessnut")
        }
        #expect(writes.count == 10)
        for (previous, next) in zip(writes, writes.dropFirst()) {
            #expect(next.time - previous.time >= 0.2 - 0.001)
        }
        let violations = try await fixture.violations("chessnut")
        #expect(violations["writesTooClose"] == 0, "\(violations)")
        #expect(violations["total"] == 0, "\(violations)")
        transport.disconnect()
    }

    @Test func aChessUpGameOfFiftyMovesNeedsNoRetransmission() async throws {
        // Every report is acknowledged: resent only when an ack is over 2 s late, not at the
        // real board's 0.3 s, which a loaded CI machine running debug builds can miss.
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.chessUp + ",retransmit=2"])
        defer { fixture.stop() }
        fixture.manager.start()
        let transport = try fixture.transport(.chessUp)
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        transport.start()
        #expect(await eventually { recorder.events.contains(.ready) })
        let game = SimulatedBoards.randomGame(plies: 50, seed: 7)
        try await fixture.play("chessup", game, pace: 0.05)
        let all = await eventually { recorder.moves.count >= 50 }
        #expect(all, "\(recorder.moves.count) moves\n\(fixture.log.text)")
        #expect(recorder.moves.map(\.uci) == game)
        let violations = try await fixture.violations("chessup")
        #expect(violations["missingAcks"] == 0, "\(violations)")
        #expect(violations["total"] == 0, "\(violations)")
        transport.disconnect()
    }
}

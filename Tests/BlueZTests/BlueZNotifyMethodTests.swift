import Adapters
import BlueZ
import BoardKit
import DBus
import Foundation
import TestSupport
import Testing

/// `AcquireNotify` (a socket per characteristic) versus `StartNotify` (D-Bus signals), and
/// the fallback from the first to the second.
@MainActor
@Suite(.serialized, .enabled(if: TestTools.available("dbus-daemon")))
struct BlueZNotifyMethodTests {
    /// The model's record of the Chessnut board's notify characteristics.
    private func notifyCharacteristics(_ fixture: SimulatorFixture) -> [BlueZCharacteristicInfo] {
        let profile = AdapterFactory.profile(for: .chessnut, advertisedName: SimulatedBoards.name(.chessnut))
        let uuids = Set(profile.notifyCharacteristicUUIDs.map { $0.lowercased() })
        return fixture.manager.model.characteristics.values.filter { uuids.contains($0.uuid) }
    }

    private func settings(_ method: BlueZNotifyMethod) -> BlueZTransportSettings {
        var settings = SimulatorFixture.settings
        settings.notifyMethod = method
        return settings
    }

    @Test(arguments: [BlueZNotifyMethod.acquireNotify, .startNotify])
    func aGameArrivesWhicheverWayNotificationsAreTaken(method: BlueZNotifyMethod) async throws {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.chessnut])
        defer { fixture.stop() }
        fixture.manager.start()
        let transport = try fixture.transport(.chessnut, settings: settings(method))
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        transport.start()
        #expect(await eventually { recorder.events.contains(.ready) }, "\(fixture.log.text)")
        let acquired = await eventually {
            let characteristics = notifyCharacteristics(fixture)
            return !characteristics.isEmpty
                && characteristics.allSatisfy { $0.notifyAcquired == (method == .acquireNotify) }
        }
        #expect(acquired, "\(notifyCharacteristics(fixture))")
        let game = SimulatedBoards.randomGame(plies: 12, seed: 3)
        try await fixture.play("chessnut", game, pace: 0.02)
        let snapshots = await eventually {
            recorder.events.contains { if case .pieces = $0 { true } else { false } }
        }
        #expect(snapshots)
        let final = try await fixture.position("chessnut")
        let arrived = await eventually {
            guard
                case .pieces(let snapshot) = recorder.events.last(where: {
                    if case .pieces = $0 { true } else { false }
                })
            else { return false }
            return snapshot.fenPlacement == final.split(separator: " ").first.map(String.init)
        }
        #expect(arrived, "the last snapshot is not the board's position \(final)")
        transport.disconnect()
        #expect(transport.state == .disconnected)
        // Released: BlueZ shows nobody holding the socket any more.
        if method == .acquireNotify {
            #expect(await eventually { notifyCharacteristics(fixture).allSatisfy { $0.notifyAcquired == false } })
        }
    }

    @Test func aRefusedAcquireNotifyFallsBackToStartNotify() async throws {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.chessnut])
        defer { fixture.stop() }
        fixture.manager.start()
        // A first link exports the GATT objects (they stay cached after it ends).
        let first = try fixture.transport(.chessnut, settings: settings(.startNotify))
        first.start()
        #expect(await eventually { first.state == .connected })
        first.disconnect()
        #expect(await eventually { fixture.manager.model.devices.values.allSatisfy { !$0.connected } })
        let paths = notifyCharacteristics(fixture).map(\.path)
        try #require(!paths.isEmpty)
        // Another client holds a StartNotify session: BlueZ refuses AcquireNotify (InProgress).
        for path in paths {
            _ = try await fixture.control.call(
                destination: "org.bluez", path: path, interface: "org.bluez.GattCharacteristic1",
                member: "StartNotify", timeout: .seconds(10))
        }
        let transport = try fixture.transport(.chessnut, settings: settings(.acquireNotify))
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        transport.start()
        #expect(await eventually { recorder.events.contains(.ready) }, "\(fixture.log.text)")
        #expect(fixture.log.contains("AcquireNotify on"), "\(fixture.log.text)")
        #expect(fixture.log.contains("using StartNotify"))
        #expect(notifyCharacteristics(fixture).allSatisfy { $0.notifyAcquired == false })
        try await fixture.play("chessnut", ["e2e4"], pace: 0.02)
        let moved = await eventually {
            recorder.events.contains { event in
                if case .pieces(let snapshot) = event { snapshot[.e4] == Piece(.white, .pawn) } else { false }
            }
        }
        #expect(moved, "events \(recorder.events.suffix(5))")
        transport.disconnect()
    }

    @Test func aNotificationSocketClosedByBlueZEndsTheLinkAndItReconnects() async throws {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.chessnut])
        defer { fixture.stop() }
        fixture.manager.start()
        let transport = try fixture.transport(.chessnut, settings: settings(.acquireNotify))
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        transport.start()
        #expect(await eventually { recorder.events.contains(.ready) })
        try await fixture.drop("chessnut")
        let back = await eventually {
            recorder.count { if case .disconnected = $0 { true } else { false } } >= 1
                && recorder.count { $0 == .ready } >= 2
        }
        #expect(back, "events \(recorder.events)\n\(fixture.log.text)")
        #expect(
            await eventually {
                let characteristics = notifyCharacteristics(fixture)
                return !characteristics.isEmpty && characteristics.allSatisfy { $0.notifyAcquired == true }
            })
        transport.disconnect()
    }
}

/// Events handed straight to a main-actor handler (``BoardEventDelivering``) instead of the
/// stream.
@MainActor
@Suite(.serialized, .enabled(if: TestTools.available("dbus-daemon")))
struct BlueZEventDeliveryTests {
    @Test func aHandlerGetsEveryEventInOrderAndTheStreamNone() async throws {
        // Resent only when an ack is over 2 s late (as in the transport's own ChessUp tests):
        // this test is about delivery, and a resend at the real board's 0.3 s under load is
        // the board's protocol, not a delivery matter.
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.chessUp + ",retransmit=2"])
        defer { fixture.stop() }
        fixture.manager.start()
        let transport = try fixture.transport(.chessUp)
        var delivered: [BoardEvent] = []
        transport.deliverEvents { delivered.append($0) }
        let streamed = EventRecorder(transport.events)
        defer { streamed.stop() }
        transport.start()
        #expect(await eventually { delivered.contains(.ready) }, "\(fixture.log.text)")
        #expect(delivered.first == .connected)
        let game = SimulatedBoards.randomGame(plies: 10, seed: 11)
        try await fixture.play("chessup", game, pace: 0.02)
        let moves = {
            delivered.compactMap { event -> String? in
                if case .moveReported(let move) = event { move.uci } else { nil }
            }
        }
        #expect(await eventually { moves().count >= game.count })
        // In order. (Under heavy load a late acknowledgement makes a ChessUp resend a report;
        // that is the board's protocol, answered by the kernel, not a delivery matter.)
        #expect(Array(moves().prefix(game.count)) == game)
        #expect(streamed.events.isEmpty)

        // Without the handler, events go to the stream again.
        transport.deliverEvents(to: nil)
        let before = delivered.count
        try await fixture.play("chessup", Array(SimulatedBoards.randomGame(plies: 12, seed: 11).suffix(2)), pace: 0.02)
        #expect(await eventually { streamed.moves.count >= 2 }, "streamed \(streamed.events)")
        #expect(delivered.count == before)
        transport.disconnect()
    }
}

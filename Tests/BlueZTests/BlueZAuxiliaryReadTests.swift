import BlueZ
import BoardKit
import DBus
import TestSupport
import Testing

/// Issue #15 (10): characteristics outside the adapter's wire stream — ChessUp's GATT
/// Battery Service — are read and subscribed by the transport for the adapter.
@MainActor
@Suite(.serialized, .enabled(if: TestTools.available("dbus-daemon")))
struct BlueZAuxiliaryReadTests {
    @Test func chessUpBatteryIsReadFromItsBatteryServiceAndNotified() async throws {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.chessUp + ",battery=77"])
        defer { fixture.stop() }
        fixture.manager.start()
        let transport = try fixture.transport(.chessUp)
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        transport.start()
        #expect(await eventually { recorder.events.contains(.ready) })
        // The handshake's last write (`50`, the occupancy stream) is answered with the occupancy.
        #expect(await eventually { recorder.events.contains { if case .occupancy = $0 { true } else { false } } })
        // No wire bytes for it, yet the transport can carry it out: by a read.
        #expect(transport.canSend(.requestBattery))
        let writesBefore = try await fixture.writes("chessup").count
        transport.send(.requestBattery)
        #expect(await eventually { recorder.events.contains(.battery(percent: 77, charging: nil)) })
        #expect(try await fixture.writes("chessup").count == writesBefore, "a read, not a write")
        // A change on the board is notified (the charging flag comes in a `33` frame first).
        try await fixture.call("SetBattery", [.string("chessup"), .uint32(64), .bool(true)])
        #expect(await eventually { recorder.events.contains(.battery(percent: 64, charging: true)) })
        transport.disconnect()
    }

    @Test func aBoardWithoutAuxiliaryCharacteristicsSkipsTheCommandItCannotEncode() async throws {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.specification(.millennium)])
        defer { fixture.stop() }
        fixture.manager.start()
        let transport = try fixture.transport(.millennium)
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        transport.start()
        #expect(await eventually { recorder.events.contains(.ready) })
        #expect(!transport.canSend(.requestBattery))
        transport.disconnect()
    }
}

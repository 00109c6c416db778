import BoardKit
import Foundation
import JSON
import Logging
import TestSupport
import Testing

@testable import Bridge
@testable import Contract

/// Issue #32: a Certabo board's calibration through the session: its events, the table kept
/// in the state directory and read back, the `calibrate` command.
@MainActor @Suite struct CertaboCalibrationSessionTests {
    static let event = "boardbridge/board-01/event"

    func calibrationStates(_ harness: SessionHarness) -> [String] {
        harness.publisher.payloads(on: Self.event).filter { $0["event_type"] == "calibration" }
            .compactMap { $0["state"]?.stringValue }
    }

    @Test func aLearnedTableIsPublishedKeptAndReadBack() async throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = StateWriter(store: try StateStore(directory: directory.path)) { name, reason in
            Issue.record("\(name): \(reason)")
        }
        let harness = try SessionHarness(family: .certabo, name: "Certabo", store: store)
        let file = BoardCalibrationKeeper(board: "board-01", store: store, logger: Logger(label: "test", level: .error))
        #expect(file.table == nil)
        harness.session.calibration = file
        await harness.connect()
        for _ in 0..<8 { harness.transport.advance(by: 0.1) }
        await harness.pump()
        #expect(calibrationStates(harness) == ["needed", "learned"])
        let learned = harness.publisher.payloads(on: Self.event).last { $0["state"] == "learned" }
        #expect(learned?["pieces"] == .number(32))
        #expect(file.table?.count == 32)
        store.flush()
        let again = BoardCalibrationKeeper(
            board: "board-01", store: store, logger: Logger(label: "test", level: .error))
        #expect(again.table == file.table, "the next run names the pieces by the kept table")
        #expect(harness.session.isReady)

        // The command forgets it; the link is re-established by the transport (here: asked to).
        let reply = harness.session.execute(.calibrate)
        #expect((try? reply.get())?["calibrating"] == .bool(true))
        #expect(file.table == nil)
        let forgotten = BoardCalibrationKeeper(
            board: "board-01", store: store, logger: Logger(label: "test", level: .error))
        #expect(forgotten.table == nil)
    }

    @Test func aDamagedFileCalibratesAfresh() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = StateWriter(store: try StateStore(directory: directory.path)) { _, _ in }
        for damaged in [#"{"board":"board-01","pieces":{"0102030405":"X"}}"#, #"{"board":"other","pieces":{}}"#, "{"] {
            try Data(damaged.utf8).write(to: directory.appendingPathComponent("board-01.calibration.json"))
            let file = BoardCalibrationKeeper(board: "board-01", store: store, logger: .silent)
            #expect(file.table == nil, "\(damaged)")
        }
    }

    /// The arbiter's cases where the board can sense them: an illegal move is named and put
    /// back, a takeback waits for the board, LEDs light the squares asked for.
    @Test(arguments: [BoardFamily.certabo, .sentio])
    func arbiterCases(family: BoardFamily) async throws {
        var harness = try SessionHarness(
            family: family, name: family == .certabo ? "Certabo" : "Sentio", orientation: .whiteNear)
        await harness.connect()
        for _ in 0..<8 { harness.transport.advance(by: 0.1) }
        await harness.pump()
        for uci in ["e2e4", "e7e5"] { await harness.play(uci) }
        #expect(harness.publisher.payloads(on: "boardbridge/board-01/move").map { $0["san"] } == ["e4", "e5"])
        harness.publisher.clear()

        // The rook jumps its pawn: never a move.
        harness.perform(.lift(.a1))
        harness.perform(.place(Piece(.white, .rook), on: .a3))
        await harness.pump()
        harness.time.advance(5)
        harness.session.tick()
        let types = harness.publisher.payloads(on: Self.event).compactMap { $0["event_type"]?.stringValue }
        #expect(types.contains("illegal_move") || types.contains("out_of_sync"), "\(types)")
        #expect(harness.session.core.game.moves.count == 2)
        harness.perform(.lift(.a3))
        harness.perform(.place(Piece(.white, .rook), on: .a1))
        await harness.pump()
        #expect(harness.session.core.syncState == .inSync)

        // A takeback: the game goes back at once, the board follows.
        _ = try harness.session.execute(.game(.takeback(plies: 1))).get()
        #expect(harness.session.core.game.moves.count == 1)
        harness.perform(.lift(.e5))
        harness.perform(.place(Piece(.black, .pawn), on: .e7))
        await harness.pump()
        #expect(harness.session.core.syncState == .inSync)
        await harness.play("d7d5")
        #expect(harness.session.core.game.moves.map(\.move.uci) == ["e2e4", "d7d5"])

        let before = harness.transport.writes.count
        _ = try harness.session.execute(.board(.indicate(squares: [.e2, .e4], style: .move))).get()
        #expect(harness.transport.writes.count == before + 1)
        #expect(harness.transport.writes.last?.1 == Data([0, 0, 0, 0, 0x10, 0, 0x10, 0]))
    }

    @Test func otherFamiliesHaveNothingToCalibrate() async throws {
        let harness = try SessionHarness()
        await harness.connect()
        guard case .failure(let failure) = harness.session.execute(.calibrate) else {
            Issue.record("a Chessnut board calibrated")
            return
        }
        #expect(failure.description.contains("nothing to calibrate"), "\(failure)")
    }
}

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
        let file = BoardCalibrationFile(board: "board-01", store: store, logger: Logger(label: "test", level: .error))
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
        let again = BoardCalibrationFile(board: "board-01", store: store, logger: Logger(label: "test", level: .error))
        #expect(again.table == file.table, "the next run names the pieces by the kept table")
        #expect(harness.session.isReady)

        // The command forgets it; the link is re-established by the transport (here: asked to).
        let reply = harness.session.execute(.calibrate)
        #expect((try? reply.get())?["calibrating"] == .bool(true))
        #expect(file.table == nil)
        let forgotten = BoardCalibrationFile(
            board: "board-01", store: store, logger: Logger(label: "test", level: .error))
        #expect(forgotten.table == nil)
    }

    @Test func aDamagedFileCalibratesAfresh() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = StateWriter(store: try StateStore(directory: directory.path)) { _, _ in }
        for damaged in [#"{"board":"board-01","pieces":{"0102030405":"X"}}"#, #"{"board":"other","pieces":{}}"#, "{"] {
            try Data(damaged.utf8).write(to: directory.appendingPathComponent("board-01.calibration.json"))
            let file = BoardCalibrationFile(board: "board-01", store: store, logger: .silent)
            #expect(file.table == nil, "\(damaged)")
        }
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

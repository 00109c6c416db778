import Chess
import Contract
import Foundation
import TestSupport
import Testing

/// Issue #32: Certabo and Sentio boards served by `boardsim` behind pseudo-terminals, end to
/// end through the bridge binary.
extension EndToEndTests {
    /// The `calibration` events of `board` since `mark`: their states.
    private func calibrationStates(_ hall: Hall, _ board: String, since mark: Int = 0) -> [String] {
        hall.recorder.json(on: hall.topic(board, "event"), since: mark).filter { $0["event_type"] == "calibration" }
            .compactMap { $0["state"]?.stringValue }
    }

    /// A Certabo board learns its pieces from the start position when the bridge first sees
    /// it (the table kept in the state directory), a whole random game arrives exact across
    /// an unplug with a move made meanwhile (the table is used again: no new calibration),
    /// and the `calibrate` command has it learn the pieces again once they stand on the
    /// start position. A Sentio plays the same game through the occupancy path.
    @Test func certaboAndSentioGamesOverBoardsimPseudoTerminals() async throws {
        let directory = FileManager.default.temporaryDirectory
        let certabo = HallBoard(
            id: "certabo-pty", family: "certabo", address: "AA:BB:CC:00:32:01",
            serialLink: directory.appendingPathComponent("boardsim-certabo-\(UUID())").path)
        let sentio = HallBoard(
            id: "sentio-pty", family: "sentio", address: "AA:BB:CC:00:32:02",
            serialLink: directory.appendingPathComponent("boardsim-sentio-\(UUID())").path)
        // A short stall watch: boards left alone (their frames change nothing) must not be
        // taken for silent ones.
        let hall = try await Hall(
            boards: [certabo, sentio], settings: HallSettings(health: (interval: 2, stallAfter: 4)))
        defer { hall.stop() }
        #expect(calibrationStates(hall, certabo.id) == ["needed", "learned"])
        let learned = hall.recorder.json(on: hall.topic(certabo.id, "event")).last { $0["state"] == "learned" }
        #expect(learned?["pieces"]?.intValue == 32, "\(String(describing: learned))")
        let file = hall.directory.appendingPathComponent("state/\(certabo.id).calibration.json").path
        #expect(FileManager.default.fileExists(atPath: file))

        let uci = Self.randomLegalGame(seed: 3201, plies: 30)
        let game = try PlayedGame(uci)
        try await hall.playTogether(
            [(certabo.id, Array(uci.prefix(12))), (sentio.id, Array(uci.prefix(12)))], pace: 0.3)
        try await hall.waitForMoves(certabo.id, count: 12)
        try await hall.waitForMoves(sentio.id, count: 12)

        let mark = hall.recorder.mark
        try await hall.ctl("present", certabo.id, "false")
        try await waitUntil("the board reported lost", context: hall.report) {
            hall.connectionStates(certabo.id, since: mark).contains("reconnecting")
        }
        try await hall.play(certabo.id, [uci[12]], pace: 0.3)
        try await hall.ctl("present", certabo.id, "true")
        try await hall.waitUntilReady(certabo.id, since: mark)
        try await hall.waitForMoves(certabo.id, count: 13)
        #expect(calibrationStates(hall, certabo.id, since: mark).isEmpty, "the kept table is used again")

        try await hall.playTogether(
            [(certabo.id, Array(uci.dropFirst(13))), (sentio.id, Array(uci.dropFirst(12)))], pace: 0.3)
        for board in [certabo.id, sentio.id] {
            game.expectPublished(try await hall.waitForMoves(board, count: uci.count), board: board)
            game.expectPGN(try await hall.waitForPGN(board, plies: uci.count), board: board)
        }

        // Left alone for longer than the stall watch allows.
        try await hall.expectNoStallWhileLeftAlone([certabo.id, sentio.id])

        let asked = hall.recorder.mark
        try hall.recorder.publish(hall.topic(certabo.id, "set"), #"{"calibrate":true,"transaction":"c1"}"#)
        try await waitUntil("the board asks for the start position", context: hall.report) {
            self.calibrationStates(hall, certabo.id, since: asked) == ["needed"]
        }
        let reply = hall.recorder.json(on: hall.topic(certabo.id, "response"), since: asked).first {
            $0["transaction"] == "c1"
        }
        #expect(reply?["data"]?["calibrating"] == .bool(true), "reply: \(String(describing: reply))")
        try await hall.ctl("reset", certabo.id)
        try await waitUntil("the pieces learned again", context: hall.report) {
            self.calibrationStates(hall, certabo.id, since: asked) == ["needed", "learned"]
        }
        try await hall.waitUntilReady(certabo.id, since: asked)
    }
}

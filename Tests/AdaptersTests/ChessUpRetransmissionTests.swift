import Adapters
import BoardKit
import Foundation
import TestSupport
import Testing

/// The real 90-ply game and the ack / retransmission rules (reference §2.5, §2.6).
@Suite struct ChessUpRetransmissionTests {
    private func frame(_ uci: String) throws -> Data {
        let move = try #require(BoardMove(uci: uci))
        return ChessUpWire.moveFrame(from: move.from, to: move.to)
    }

    private func moves(_ events: [BoardEvent]) -> [BoardMove] {
        events.compactMap { if case .moveReported(let move) = $0 { move } else { nil } }
    }

    /// Folds each promotion pick into the move before it, as the kernel will.
    private func completedMoves(_ events: [BoardEvent]) -> [BoardMove] {
        var result: [BoardMove] = []
        for event in events {
            switch event {
            case .moveReported(let move): result.append(move)
            case .promotionPicked(let kind): if !result.isEmpty { result[result.count - 1].promotion = kind }
            default: break
            }
        }
        return result
    }

    @Test func realGameFrameByFrame() {
        var adapter = ChessUpAdapter()
        var events: [BoardEvent] = []
        var acks: [Data] = []
        for frame in ChessUpRealGame.wireFrames {
            events += adapter.feed(bytes: frame)
            acks += adapter.takePendingResponses()
        }
        #expect(ChessUpRealGame.moves.count == 90)
        #expect(completedMoves(events) == ChessUpRealGame.moves)
        #expect(events.filter { if case .promotionPicked = $0 { true } else { false } } == [.promotionPicked(.queen)])
        #expect(acks.filter { $0 == Data([0x21]) }.count == 90)
        #expect(acks.filter { $0 == Data([0x23]) }.count == 1)
        #expect(acks.count == 91)
    }

    @Test func realGameInAnySplit() {
        let blob = ChessUpRealGame.wireFrames.reduce(Data(), +)
        let result = FramingVerifier.verify(ChessUpAdapter(), blob, seeds: [1, 2, 3, 4, 5])
        #expect(result.mismatch == nil)
        #expect(completedMoves(result.events) == ChessUpRealGame.moves)
    }

    @Test func realGameWithRetransmissionWavesAndTouches() {
        // Every frame is retransmitted up to three times, and retransmissions of the
        // previous frame are mixed in (the board's wave while an ack is late), with touch
        // frames in between: the moves come out once each, every frame is acked.
        var generator = SeededGenerator(seed: 7)
        var stream: [Data] = []
        var recent: [Data] = []
        for frame in ChessUpRealGame.wireFrames {
            stream.append(frame)
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                let pick = Int.random(in: 0...recent.count, using: &generator)
                stream.append(pick == recent.count ? frame : recent[pick])
                if Bool.random(using: &generator) { stream.append(Data([0xB8, 0x0C, 0x00, 0xBB])) }
            }
            recent = [frame]
        }
        var adapter = ChessUpAdapter()
        var events: [BoardEvent] = []
        var acks: [Data] = []
        for chunk in stream {
            events += adapter.feed(bytes: chunk)
            acks += adapter.takePendingResponses()
        }
        #expect(completedMoves(events) == ChessUpRealGame.moves)
        let moveFrames = stream.filter { $0.first == 0xA3 }.count
        let pickFrames = stream.filter { $0.first == 0x97 }.count
        #expect(pickFrames > 0)
        #expect(acks.filter { $0 == Data([0x21]) }.count == moveFrames)
        #expect(acks.filter { $0 == Data([0x23]) }.count == pickFrames)
    }

    @Test func retransmittedMoveIsAckedAgainWithoutASecondEvent() throws {
        var adapter = ChessUpAdapter()
        let move = try frame("g8f6")
        #expect(adapter.feed(bytes: move) == [.moveReported(BoardMove(from: .g8, to: .f6))])
        #expect(adapter.feed(bytes: move).isEmpty)
        #expect(adapter.feed(bytes: move).isEmpty)
        #expect(adapter.takePendingResponses() == Array(repeating: Data([0x21]), count: 3))
    }

    @Test func retransmittedPromotionPickIsAckedWithoutASecondEvent() throws {
        var adapter = ChessUpAdapter()
        let events = adapter.feed(bytes: try frame("g2g1") + Data([0x97, 0x04]) + frame("g2g1") + Data([0x97, 0x04]))
        #expect(events == [.moveReported(BoardMove(from: .g2, to: .g1)), .promotionPicked(.queen)])
        #expect(adapter.takePendingResponses() == [Data([0x21]), Data([0x23]), Data([0x21]), Data([0x23])])
        // A late pick after a move that cannot promote is not a new pick either.
        #expect(
            adapter.feed(bytes: try frame("e7e5") + Data([0x97, 0x04])) == [
                .moveReported(BoardMove(from: .e7, to: .e5))
            ])
    }

    @Test func interleavedRetransmissionsAreRecognised() throws {
        var adapter = ChessUpAdapter()
        let stream = try ["e2e4", "e7e5", "e2e4", "g1f3", "e7e5", "g1f3"].map(frame).reduce(Data(), +)
        #expect(moves(adapter.feed(bytes: stream)).map(\.uci) == ["e2e4", "e7e5", "g1f3"])
    }

    @Test func realRepetitionAfterThreeMovesIsReported() throws {
        // 1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3: the same frame again after three other moves is a real move.
        var adapter = ChessUpAdapter()
        let plies = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6"]
        let events = adapter.feed(bytes: try plies.map(frame).reduce(Data(), +))
        #expect(moves(events).map(\.uci) == plies)
    }

    @Test func sameSquaresByTheOtherSideTwoPliesLaterIsReported() throws {
        // From a real random game: Ra3a1, Qa4a3, c4b5, Qa3xa1 — the queen repeats the rook's
        // from → to with two moves in between.
        var adapter = ChessUpAdapter()
        let plies = ["a3a1", "a4a3", "c4b5", "a3a1"]
        #expect(moves(adapter.feed(bytes: try plies.map(frame).reduce(Data(), +))).map(\.uci) == plies)
    }

    @Test func undoAndLoadClearTheRetransmissionMemory() throws {
        for reset in [Data([0xBD]), Data([0xB1])] {
            var adapter = ChessUpAdapter()
            let move = try frame("e2e4")
            #expect(moves(adapter.feed(bytes: move + move + reset + move)).count == 2)
        }
    }

    @Test func stateFrameKeepsOnlyMovesItAgreesWith() throws {
        var adapter = ChessUpAdapter()
        let e2e4 = try frame("e2e4")
        let start = ChessUpState(
            pieces: .startingPosition, sideToMove: .white, castlingRights: [true, true, true, true],
            enPassant: nil, halfmoveClock: 0, fullmoveNumber: 1)
        var afterE4 = start
        afterE4.pieces[.e2] = nil
        afterE4.pieces[.e4] = Piece(.white, .pawn)
        afterE4.sideToMove = .black
        _ = adapter.feed(bytes: e2e4)
        // A state that shows e2e4 played: a late retransmission is still a retransmission.
        _ = adapter.feed(bytes: afterE4.frame)
        #expect(moves(adapter.feed(bytes: e2e4)).isEmpty)
        // A new game (start position): the same move is a new move.
        _ = adapter.feed(bytes: start.frame)
        #expect(moves(adapter.feed(bytes: e2e4)) == [BoardMove(from: .e2, to: .e4)])
    }

    @Test func resetForgetsAcksAndMemory() throws {
        var adapter = ChessUpAdapter()
        let move = try frame("d2d4")
        _ = adapter.feed(bytes: move + Data([0xA3, 0x35]))
        adapter.reset()
        #expect(adapter.takePendingResponses().isEmpty)
        #expect(adapter.bufferedByteCount == 0)
        #expect(moves(adapter.feed(bytes: move)) == [BoardMove(from: .d2, to: .d4)])
    }
}

import Adapters
import BoardKit
import Foundation
import TestScheduling
import TestSupport
import Testing

/// Vectors from the protocol's README (vovagorodok/chess_peripheral_protocol at `a0a7d8c`):
/// its examples of `begin`/`sync`/`unsync`, moves, promotion and features, byte for byte.
@Suite struct ChessPeripheralAdapterTests {
    static let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"

    static func ready() -> ChessPeripheralAdapter {
        var adapter = ChessPeripheralAdapter()
        _ = adapter.feed(bytes: Data("ok".utf8))
        _ = adapter.feed(bytes: Data("ok".utf8))
        return adapter
    }

    @Test func theHandshakeAsksForTheStateStreamAndTheCheckSquareOneWriteEach() {
        let adapter = ChessPeripheralAdapter()
        for isReconnect in [false, true] {
            let steps = adapter.handshakeCommands(isReconnect: isReconnect)
            #expect(
                steps.compactMap { adapter.encode($0.command) } == [
                    Data("feature submove_state".utf8), Data("feature check".utf8),
                ])
            #expect(steps.dropFirst().allSatisfy { $0.delayBefore >= ChessPeripheralAdapter.writeFloor })
        }
    }

    /// Each answer is the next feature's, in order; the last makes the board ready.
    @Test func theFeatureAnswersMakeTheBoardReadyAndSayWhatItAccepted() {
        var adapter = ChessPeripheralAdapter()
        #expect(adapter.feed(bytes: Data("nok".utf8)) == [])
        #expect(adapter.feed(bytes: Data("ok".utf8)) == [.ready])
        #expect(adapter.acceptedFeatures == ["check"])
        // An answer nobody asked for is no event of the game.
        #expect(adapter.feed(bytes: Data("ok".utf8)) == [.raw(Data("ok".utf8))])
        #expect(adapter.encode(.indicate(squares: [.e1], style: .check)) == Data("check e1".utf8))

        var refused = ChessPeripheralAdapter()
        _ = refused.feed(bytes: Data("ok".utf8))
        _ = refused.feed(bytes: Data("nok".utf8))
        #expect(refused.acceptedFeatures == ["submove_state"])
        #expect(refused.encode(.indicate(squares: [.e1], style: .check)) == nil)
    }

    /// README "Begin" and "Unsync": every placement is occupancy, unknown pieces included.
    @Test func placementsAreOccupancy() {
        var adapter = Self.ready()
        #expect(adapter.feed(bytes: Data("sync \(Self.start) w".utf8)) == [.occupancy(.startingPosition)])
        var a3 = OccupancyMap.startingPosition
        a3.remove(.a2)
        a3.insert(.a3)
        #expect(
            adapter.feed(bytes: Data("unsync rnbqkbnr/pppppppp/8/8/8/P7/1PPPPPPP/RNBQKBNR b".utf8))
                == [.occupancy(a3)])
        #expect(
            adapter.feed(bytes: Data("unsync ????????/????????/8/8/8/8/????????/????????".utf8))
                == [.occupancy(.startingPosition)])
        #expect(
            adapter.feed(bytes: Data("unsync uuuuuuuu/uuuuuuuu/8/8/8/8/UUUUUUUU/UUUUUUUU w".utf8))
                == [.occupancy(.startingPosition)])
        // The cat-disaster case: every white piece knocked off.
        #expect(
            adapter.feed(bytes: Data("unsync ????????/????????/8/8/8/8/8/8".utf8))
                == [.occupancy(OccupancyMap(bits: 0xFFFF_0000_0000_0000))])
        #expect(adapter.feed(bytes: Data("state \(Self.start)".utf8)) == [.occupancy(.startingPosition)])
        #expect(adapter.feed(bytes: Data("unsync_settable \(Self.start) w".utf8)) == [.occupancy(.startingPosition)])
        for bad in ["sync rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP", "sync 9/8/8/8/8/8/8/8", "state rnbqkbnrr/8/8/8/8/8/8/8"]
        {
            #expect(adapter.feed(bytes: Data(bad.utf8)) == [.raw(Data(bad.utf8))], "\(bad)")
        }
    }

    /// README "Move" and "Promote": reports in, verdicts out.
    @Test func movesAreReportedAndJudged() {
        var adapter = Self.ready()
        #expect(adapter.feed(bytes: Data("move a2a3".utf8)) == [.moveReported(BoardMove(uci: "a2a3")!)])
        #expect(adapter.feed(bytes: Data("move e1g1".utf8)) == [.moveReported(BoardMove(uci: "e1g1")!)])
        #expect(adapter.feed(bytes: Data("move a7a8q".utf8)) == [.moveReported(BoardMove(uci: "a7a8q")!)])
        for bad in ["move", "move a2", "move a2a9", "move e2e4e5"] {
            #expect(adapter.feed(bytes: Data(bad.utf8)) == [.raw(Data(bad.utf8))], "\(bad)")
        }
        let a2a3 = BoardMove(uci: "a2a3")!
        #expect(adapter.encode(.judgeMove(reported: a2a3, taken: a2a3)) == Data("ok".utf8))
        #expect(adapter.encode(.judgeMove(reported: a2a3, taken: nil)) == Data("nok".utf8))
        let a7a8 = BoardMove(uci: "a7a8")!
        #expect(
            adapter.encode(.judgeMove(reported: a7a8, taken: BoardMove(uci: "a7a8n"))) == Data("promote a7a8n".utf8))
        let named = BoardMove(uci: "a7a8q")!
        #expect(adapter.encode(.judgeMove(reported: named, taken: named)) == Data("ok".utf8))
    }

    @Test func theHostBeginsRoundsAndEndsThem() {
        let adapter = Self.ready()
        #expect(
            adapter.encode(.loadPosition(fen: "\(Self.start) w KQkq - 0 1"))
                == Data("begin \(Self.start) w KQkq - 0 1".utf8))
        #expect(adapter.encode(.endGame(reason: "checkmate")) == Data("end checkmate".utf8))
        #expect(adapter.encode(.endGame(reason: "resignation")) == Data("end resign".utf8))
        #expect(adapter.encode(.endGame(reason: "time_forfeit")) == Data("end timeout".utf8))
        #expect(adapter.encode(.endGame(reason: "threefold_repetition")) == Data("end draw".utf8))
        #expect(adapter.encode(.endGame(reason: "adjudication")) == Data("end undefined".utf8))
        // No LEDs of its own, no battery, no robot.
        for command: BoardCommand in [
            .startSession, .requestState, .requestBattery, .clearIndications, .executeMove(uci: "e2e4"),
            .indicate(squares: [.e2, .e4], style: .move),
        ] {
            #expect(adapter.encode(command) == nil, "\(command)")
        }
    }

    /// The 2024 dialect (README at `3b1220d`, ArduinoBleChess 0.2, OPENCHESSBOARD): the board
    /// answers the `begin` it does not know with `nok`; the adapter speaks its dialect from
    /// then on and says `ready` again, so that the host gives the position once more, as
    /// `fen`. The board's `ok` says its squares show it; `nok` and `fen <placement>` say what
    /// they show instead.
    @Test func aBoardOfThe2024DialectIsGivenItsPositionAsFEN() {
        var adapter = Self.ready()
        let fen = "\(Self.start) w KQkq - 0 1"
        #expect(adapter.encode(.loadPosition(fen: fen)) == Data("begin \(fen)".utf8))
        #expect(adapter.feed(bytes: Data("nok".utf8)) == [.ready])
        #expect(adapter.dialect == .acknowledged)
        #expect(adapter.encode(.loadPosition(fen: fen)) == Data("fen \(fen)".utf8))
        #expect(adapter.feed(bytes: Data("ok".utf8)) == [.positionConfirmed])
        #expect(adapter.feed(bytes: Data("nok".utf8)) == [])
        var a3 = OccupancyMap.startingPosition
        a3.remove(.a2)
        a3.insert(.a3)
        // README "Fen": `p) nok` then `p) fen rnbqkbnr/pppppppp/8/8/8/7P/1PPPPPPP/RNBQKBNR`.
        #expect(
            adapter.feed(bytes: Data("fen rnbqkbnr/pppppppp/8/8/8/P7/1PPPPPPP/RNBQKBNR".utf8)) == [.occupancy(a3)])
        #expect(adapter.feed(bytes: Data("fen ????????/????????/8/8/8/8/8/8".utf8)).count == 1)
        #expect(adapter.feed(bytes: Data("move a7a6".utf8)) == [.moveReported(BoardMove(uci: "a7a6")!)])
        #expect(adapter.encode(.judgeMove(reported: BoardMove(uci: "a7a6")!, taken: nil)) == Data("nok".utf8))
        // README "Promote": `c) promote a7a8n`, acknowledged `p) ok`.
        #expect(
            adapter.encode(.judgeMove(reported: BoardMove(uci: "a7a8")!, taken: BoardMove(uci: "a7a8n")!))
                == Data("promote a7a8n".utf8))
        // No `end` in that dialect; `check` only with the feature it does not have.
        #expect(adapter.encode(.endGame(reason: "checkmate")) == nil)
        #expect(adapter.encode(.indicate(squares: [.e1], style: .check)) == nil)
        // A link is a fresh adapter: the dialect is found again.
        #expect(ChessPeripheralAdapter().dialect == .current)
    }

    /// A board of today's dialect that says its squares before anything else is never taken
    /// for a 2024 one: a `nok` after a placement is no answer to `begin`.
    @Test func aNokAfterAPlacementIsNoDialect() {
        var adapter = Self.ready()
        #expect(adapter.feed(bytes: Data("sync \(Self.start) w".utf8)) == [.occupancy(.startingPosition)])
        #expect(adapter.feed(bytes: Data("nok".utf8)) == [.raw(Data("nok".utf8))])
        #expect(adapter.dialect == .current)
        #expect(adapter.feed(bytes: Data("ok".utf8)) == [.raw(Data("ok".utf8))])
    }

    /// Messages a board ends with a line feed, a carriage return or a NUL, or joins with
    /// line feeds, read the same; text that is no command is never a move.
    @Test func lineEndsAndJoinedMessagesAreRead() {
        var adapter = Self.ready()
        #expect(adapter.feed(bytes: Data("move e2e4\r\n".utf8)) == [.moveReported(BoardMove(uci: "e2e4")!)])
        #expect(adapter.feed(bytes: Data("move e7e5\0".utf8)) == [.moveReported(BoardMove(uci: "e7e5")!)])
        #expect(
            adapter.feed(bytes: Data("state \(Self.start)\nmove g1f3".utf8))
                == [.occupancy(.startingPosition), .moveReported(BoardMove(uci: "g1f3")!)])
        #expect(
            adapter.feed(bytes: Data("err Unsupported command".utf8)) == [.raw(Data("err Unsupported command".utf8))])
        #expect(adapter.feed(bytes: Data([0xFF, 0xFE, 0x6D])) == [.raw(Data([0xFF, 0xFE, 0x6D]))])
        #expect(adapter.feed(bytes: Data("MOVE e2e4".utf8)) == [.raw(Data("MOVE e2e4".utf8))])
        #expect(adapter.feed(bytes: Data()) == [])
        let long = Data(("move e2e4 " + String(repeating: "x", count: 100)).utf8)
        #expect(adapter.feed(bytes: long) == [.raw(long.prefix(ChessPeripheralWire.maximumMessageLength))])
    }
}

/// Notifications as a link delivers them: whole messages, garbage, and messages cut in two
/// by a link that split them. Nothing is held between notifications, every whole message
/// decodes, and a move comes only from a notification that says exactly that move.
@Suite(.cpuBound) struct ChessPeripheralFuzzTests {
    static func randomMessage(_ generator: inout SeededGenerator) -> (String, BoardEvent?) {
        let squares = Square.allCases
        switch Int.random(in: 0..<3, using: &generator) {
        case 0:
            var move = BoardMove(
                from: squares.randomElement(using: &generator)!, to: squares.randomElement(using: &generator)!)
            if Bool.random(using: &generator) { move.promotion = [.queen, .knight].randomElement(using: &generator) }
            return ("move \(move.uci)", .moveReported(move))
        case 1:
            let map = OccupancyMap(bits: generator.next())
            let text = ChessPeripheralWire.placement(map, knowing: BoardSnapshot())
            return (
                "\(["sync", "unsync", "state", "fen"].randomElement(using: &generator)!) \(text) w", .occupancy(map)
            )
        default:
            return (["err oops", "msg hi", "ok", "nok"].randomElement(using: &generator)!, nil)
        }
    }

    @Test(arguments: [UInt64(0xC99)])
    func notificationsWholeCutAndGarbledNeverMakeAWrongMove(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var adapter = ChessPeripheralAdapterTests.ready()
        var wholeMessages = 0
        for _ in 0..<FuzzBudget.iterations(20_000) {
            let (text, expected) = Self.randomMessage(&generator)
            var notifications: [Data]
            switch Int.random(in: 0..<4, using: &generator) {
            case 0:
                let cut = Int.random(in: 1..<text.utf8.count, using: &generator)
                notifications = [Data(text.utf8.prefix(cut)), Data(text.utf8.dropFirst(cut))]
            case 1:
                notifications = [
                    Data(
                        (0..<Int.random(in: 1...40, using: &generator)).map { _ in
                            UInt8.random(in: 0...255, using: &generator)
                        })
                ]
            default:
                notifications = [Data(text.utf8)]
                wholeMessages += 1
            }
            for notification in notifications {
                let events = adapter.feed(bytes: notification)
                if notifications.count == 1, notification == Data(text.utf8), let expected {
                    #expect(events == [expected], "\(text)")
                }
                for case .moveReported(let move) in events {
                    // The notification said exactly this move (a cut may leave a shorter
                    // well-formed move: `move a7a8q` cut before the `q` is the move a7a8).
                    let said = String(decoding: notification, as: UTF8.self).trimmingCharacters(
                        in: .whitespacesAndNewlines)
                    #expect(said == "move \(move.uci)", "\(said)")
                }
            }
        }
        #expect(wholeMessages > 0)
    }
}

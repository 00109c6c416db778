import BoardKit
import Chess
import Emulation
import Foundation
import JSON
import TestSupport
import Testing

@testable import Bridge

/// Issue #15 (9) through a whole ``BoardSession`` with the emulated firmware: random legal
/// games with the link dropped for 1–6 plies at random moments. Every move is published
/// exactly once, in order, or the gap is reported as `missed_moves` with nothing published
/// from it; never a wrong move. A ChessUp keeps its own game and sends the reports of the
/// moves made while the link was down once it is back; their order is not trusted after a
/// new link (issue #29: a partly lost resend and the board's oldest-first acknowledgement
/// reorder them), so a gap comes through when only one order of its reported moves leads
/// to the board's state, and is reported as missed (the true line among the candidates,
/// when they are listed) when several do.
@Suite(.serialized) @MainActor struct BoardSessionGapPropertyTests {
    static let seed: UInt64 = 0x6A9_0015_0C
    private let moveTopic = "boardbridge/board-01/move"
    private let eventTopic = "boardbridge/board-01/event"

    @Test func chessUpPublishesEveryMoveOfEveryGapOnceInOrderOrReportsIt() async throws {
        var gaps = 0
        var recovered = 0
        for index in 0..<12 {
            let gameSeed = Self.seed &+ UInt64(index)
            var harness = try SessionHarness(family: .chessUp, name: "ChessUp")
            harness.generator = SeededGenerator(seed: gameSeed)
            var random = SeededGenerator(seed: gameSeed &* 31)
            await harness.connect()
            let moves = RandomGame.uci(seed: gameSeed, plies: 80)
            var played: [String] = []
            var nextGap = 2 + Int(random.next() % 8)
            while played.count < moves.count {
                guard played.count == nextGap else {
                    await harness.play(moves[played.count])
                    played.append(moves[played.count])
                    continue
                }
                gaps += 1
                let length = min(1 + Int(random.next() % 6), moves.count - played.count)
                harness.transport.dropLink()
                await harness.pump()
                for uci in moves[played.count..<(played.count + length)] {
                    await harness.play(uci)
                    played.append(uci)
                }
                nextGap = played.count + 2 + Int(random.next() % 8)
                harness.transport.establishLink()
                await harness.pump()
                harness.time.advance(3)
                harness.session.tick()
                await harness.pump()
                let published = harness.publisher.payloads(on: moveTopic).compactMap { $0["uci"]?.stringValue }
                let context = "seed \(gameSeed) after \(played.count) plies, gap \(length): \(played.suffix(length))"
                let reports = harness.publisher.payloads(on: eventTopic).filter {
                    $0["event_type"] == "out_of_sync" && $0["reason"] == "missed_moves"
                }
                if let report = reports.first {
                    // Nothing of the gap published; the true line among the candidates when
                    // they are listed (at most eight).
                    #expect(published == Array(played.dropLast(length)), "\(context)")
                    let candidates =
                        report["candidates"]?.arrayValue?.map { $0.arrayValue?.compactMap(\.stringValue) } ?? []
                    #expect(
                        candidates.isEmpty || candidates.contains(Array(played.suffix(length))),
                        "\(context): \(report)")
                    break
                }
                #expect(published == played, "\(context)")
                if published != played { break }
                recovered += 1
                #expect(harness.session.core.syncState == .inSync, "\(context)")
            }
        }
        // With this seed: 22 gaps, 10 of them recovered; each game stops at its first
        // refused gap, as the bridge does until the arbiter sets the position.
        #expect(gaps >= 12 && recovered * 3 >= gaps, "\(recovered) of \(gaps) gaps recovered")
    }
}

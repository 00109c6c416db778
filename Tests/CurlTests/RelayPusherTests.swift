import Broadcast
import BroadcastRelay
import Foundation
import TestSupport
import Testing

/// The relay pusher against the relay stub: a push per change, coalesced, per-game errors
/// reported, failures counted, and moves held back by a delay pushed once it has passed.
@MainActor @Suite(.serialized) struct RelayPusherTests {
    final class Body {
        var text: String
        init(_ text: String) { self.text = text }
    }

    static func posts(in log: URL) -> [String] {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let data = line.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                object["method"] as? String == "POST"
            else { return nil }
            return object["body"] as? String
        }
    }

    static func userAgents(in log: URL) -> [String] {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let data = line.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                object["method"] as? String == "POST", let headers = object["headers"] as? [String: String]
            else { return nil }
            return headers["User-Agent"] ?? "(none)"
        }
    }

    static func game(_ white: String, _ moves: String) -> String {
        "[White \"\(white)\"]\n[Black \"Roe, R\"]\n[GameId \"5-\(white.count)\"]\n\n\(moves) *\n"
    }

    @Test func everyChangeIsPushedCoalescedAndRefusedGamesAreReported() async throws {
        let (stub, base, log) = try await CurlClientTests.startStub()
        defer { stub.stop() }
        let body = Body(Self.game("Doe, J", "1. e4"))
        var reports: [RelayPushReport] = []
        let pusher = RelayPusher(
            settings: RelayPushSettings(
                url: "\(base)/push/r5", token: "good", minimumInterval: 0.3, userAgent: "BoardBridge/test"),
            pollWhileDelayed: false, body: { body.text }, now: { Date().timeIntervalSince1970 })
        pusher.onReport = { reports.append($0) }
        defer { pusher.stop() }
        pusher.contentChanged()
        #expect(await eventually { reports.count == 1 })
        #expect(Self.posts(in: log) == [Self.game("Doe, J", "1. e4")])
        // Issue #30: every push names its client.
        #expect(Self.userAgents(in: log) == ["BoardBridge/test"])
        // Twenty changes in a burst: a few pushes, the last with the last body.
        for ply in 1...20 {
            body.text =
                Self.game("Doe, J", "1. e4 e5 " + String(repeating: "Nf3 ", count: ply)) + "\n"
                + Self.game("Bad, Move", "1. d4")
            pusher.contentChanged()
        }
        #expect(await eventually { Self.posts(in: log).last == body.text })
        // The stub logs a push before it answers; the report follows the answer.
        #expect(await eventually { reports.count == Self.posts(in: log).count })
        let count = Self.posts(in: log).count
        #expect(count >= 2 && count <= 4, "\(count) pushes for 20 changes")
        #expect(
            reports.last?.gameErrors == [
                BroadcastPushGameError(gameID: "5-9", players: "Bad, Move - Roe, R", error: "Invalid move: Nxe5")
            ])
        // Nothing changed: nothing pushed. Once the minimum interval since the last push has
        // passed (the pusher's own interval: time is the input), a push of the unchanged body
        // would start at once, its timer task queued on the main queue ahead of the round trip
        // below, and be under way when that returns; the new body set then goes out in a push
        // after it. So the push of the new body comes after any push of the unchanged one.
        let last = try #require(reports.last)
        #expect(await eventually { Date().timeIntervalSince1970 >= last.time + 0.3 })
        pusher.contentChanged()
        await mainQueueTurn()
        body.text = Self.game("Doe, J", "1. e4 e5 2. Nf3")
        pusher.contentChanged()
        #expect(await eventually { reports.count == count + 1 })
        #expect(Self.posts(in: log).suffix(1) == [body.text])
        #expect(Self.posts(in: log).count == count + 1, "the unchanged body was pushed again")
    }

    @Test func aWrongTokenAndAnUnreachableRelayAreReportedAndRetried() async throws {
        let (stub, base, _) = try await CurlClientTests.startStub()
        defer { stub.stop() }
        var reports: [RelayPushReport] = []
        let refused = RelayPusher(
            settings: RelayPushSettings(
                url: "\(base)/push/r5", token: "bad", minimumInterval: 0.1, maximumBackoff: 0.2),
            pollWhileDelayed: false, body: { Self.game("Doe, J", "1. e4") }, now: { Date().timeIntervalSince1970 })
        refused.onReport = { reports.append($0) }
        refused.contentChanged()
        #expect(await eventually { reports.count >= 2 })
        refused.stop()
        #expect(reports[0].status == 401)
        #expect(reports[0].failure?.hasPrefix("HTTP 401") == true)
        #expect(reports[1].failures == 2)

        var lost: [RelayPushReport] = []
        let port = TestTools.freeLoopbackPort()
        let unreachable = RelayPusher(
            settings: RelayPushSettings(url: "http://127.0.0.1:\(port)/push/r5", token: "good", maximumBackoff: 0.2),
            pollWhileDelayed: false, body: { "x" }, now: { Date().timeIntervalSince1970 })
        unreachable.onReport = { lost.append($0) }
        unreachable.contentChanged()
        #expect(await eventually { lost.count >= 2 })
        unreachable.stop()
        #expect(lost[0].status == nil)
        #expect(lost[0].failure?.contains("curl_easy_perform") == true)
    }

    @Test func movesHeldBackByADelayArePushedWhenItHasPassed() async throws {
        let (stub, base, log) = try await CurlClientTests.startStub()
        defer { stub.stop() }
        // What a relay behind by a delay may see: the move appears once the delay has passed,
        // with no board update to announce it. The test says when it has passed (after the
        // first push is answered), not the wall clock: a first push slower than a fixed delay
        // under load would otherwise already carry the move.
        let body = Body(Self.game("Doe, J", ""))
        var reports = 0
        let pusher = RelayPusher(
            settings: RelayPushSettings(url: "\(base)/push/r5", token: "good", minimumInterval: 0.1),
            pollWhileDelayed: true, body: { body.text }, now: { Date().timeIntervalSince1970 })
        pusher.onReport = { _ in reports += 1 }
        defer { pusher.stop() }
        pusher.contentChanged()
        #expect(await eventually { reports == 1 })
        #expect(Self.posts(in: log) == [Self.game("Doe, J", "")])
        body.text = Self.game("Doe, J", "1. e4")
        #expect(await eventually { reports == 2 })
        #expect(Self.posts(in: log) == [Self.game("Doe, J", ""), Self.game("Doe, J", "1. e4")])
    }
}

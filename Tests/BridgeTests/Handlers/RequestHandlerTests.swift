import Config
import JSON
import Testing

@testable import Bridge
@testable import Contract

/// The bridge requests (`<base>/bridge/<node>/request/<op>`): their answers over fake boards,
/// and the handler's MQTT side (which topics are its, where answers go, refusals limited).
@Suite @MainActor struct RequestHandlerTests {
    let publisher = RecordingPublisher()
    let boards: FakeBoards
    let handler: RequestHandler
    /// Counts the handler's calls of its health and restart closures.
    @MainActor final class Calls {
        var health = 0
        var restarts = 0
    }
    let calls = Calls()

    init() throws {
        boards = try FakeBoards(others: ["b2", "b1"])
        let calls = calls
        handler = RequestHandler(
            inbox: HandlerFixture.inbox(boards, publisher),
            healthReport: {
                calls.health += 1
                return ["boards_connected": 2]
            },
            restart: { calls.restarts += 1 })
    }

    private func answer(_ op: String, _ payload: String) -> String {
        handler.answer(op: op, CommandParser().parseRequest(Array(payload.utf8))).json.encodedString()
    }

    @Test func infoNamesTheVersionNodeAndBoards() {
        #expect(
            answer("info", #"{"transaction":3}"#)
                == #"{"status":"ok","data":{"version":"\#(BoardBridgeVersion.current)","node":"hall-a","boards":["b1","b2"]},"transaction":3}"#
        )
    }

    @Test func boardsAndHealthCarryTheirPayloads() throws {
        let boards = try FakeBoards(sessions: ["b1"])
        let handler = RequestHandler(
            inbox: HandlerFixture.inbox(boards, publisher), healthReport: { ["boards_connected": 2] }, restart: {})
        let answered = handler.answer(op: "boards", CommandParser().parseRequest([])).json
        let states = try #require(answered.objectValue?["data"]?.arrayValue)
        #expect(states.count == 1)
        #expect(states.first?.objectValue?["board"]?.stringValue == "b1")
        #expect(answer("health", "{}") == #"{"status":"ok","data":{"boards_connected":2}}"#)
        #expect(calls.health == 1)
    }

    @Test func reconnectOneOrAllBoards() {
        #expect(answer("reconnect", #"{"board":"b2"}"#) == #"{"status":"ok","data":{"board":"b2"}}"#)
        #expect(boards.reconnected == ["b2"])
        #expect(answer("reconnect", #"{"all":true}"#) == #"{"status":"ok","data":{"boards":["b1","b2"]}}"#)
        #expect(boards.reconnected == ["b2", "b1", "b2"])
    }

    /// Issue #30 (7): Home Assistant's "Restart bridge" button asks for this.
    @Test func restartAnswersAndRestarts() {
        #expect(
            answer("restart", #"{"transaction":"r"}"#)
                == #"{"status":"ok","data":{"restarting":true},"transaction":"r"}"#)
        #expect(calls.restarts == 1)
    }

    @Test func reconnectNeedsAnExistingBoard() {
        for payload in [#"{"board":"b9"}"#, "{}", #"{"all":false}"#, #"{"board":7}"#] {
            #expect(
                answer("reconnect", payload)
                    == #"{"status":"error","data":{},"error":"reconnect needs an existing \"board\" (or \"all\":true)"}"#
            )
        }
        #expect(boards.reconnected.isEmpty)
    }

    @Test func unknownRequestsAndBadPayloadsAreRefused() {
        #expect(
            answer("reboot", #"{"transaction":"t"}"#)
                == #"{"status":"error","data":{},"error":"unknown request \"reboot\", expected one of info, boards, health, reconnect, restart","transaction":"t"}"#
        )
        #expect(answer("reconnect", "[1]").hasPrefix(#"{"status":"error""#))
        #expect(boards.reconnected.isEmpty)
    }

    /// Only this node's request topics are the handler's; the answer goes to the response
    /// topic of its op, or to the MQTT 5 response topic the request named.
    @Test func takesThisNodesRequestsAndAnswersWhereAsked() {
        let topics = HandlerFixture.topics
        #expect(handler.subscriptions == [BridgeSubscription(filter: topics.requestFilter, connection: .commands)])
        #expect(!handler.receive(HandlerFixture.message("boardbridge/bridge/hall-b/request/info", "")))
        #expect(!handler.receive(HandlerFixture.message(topics.set("b1"), "{}")))
        #expect(publisher.messages.isEmpty)
        #expect(handler.receive(HandlerFixture.message(topics.bridgeRequest("info"), "")))
        #expect(publisher.messages.map(\.topic) == [topics.bridgeResponse("info")])
        #expect(
            handler.receive(
                HandlerFixture.message(topics.bridgeRequest("info"), "", responseTopic: "clients/me/answers")))
        #expect(publisher.messages.last?.topic == "clients/me/answers")
    }

    /// A flood of bad requests is answered up to the limiter's burst, then held back.
    @Test func refusedRequestsAreRateLimited() {
        let request = HandlerFixture.message(HandlerFixture.topics.bridgeRequest("reboot"), "")
        for _ in 0..<200 { #expect(handler.receive(request)) }
        #expect(publisher.messages.count > 0)
        #expect(publisher.messages.count < 50)
    }
}

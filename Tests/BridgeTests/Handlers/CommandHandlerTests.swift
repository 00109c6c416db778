import JSON
import Testing

@testable import Bridge
@testable import Contract

/// Board commands through their handler: which topics are its, who is answered, and what
/// is left to another bridge.
@Suite @MainActor struct CommandHandlerTests {
    let topics = HandlerFixture.topics
    let publisher = RecordingPublisher()
    let boards: FakeBoards
    let handler: CommandHandler

    init() throws {
        boards = try FakeBoards(sessions: ["b1"])
        handler = CommandHandler(
            inbox: HandlerFixture.inbox(boards, publisher), logger: HandlerFixture.logger,
            otherNode: { $0 == "far-1" ? "hall-b" : nil })
    }

    private var answers: [JSONValue] { publisher.messages.compactMap { try? JSONValue(parsing: $0.payload) } }

    @Test func subscribesToBothCommandForms() {
        #expect(handler.subscriptions.map(\.filter) == ["boardbridge/+/set", "boardbridge/+/set/+"])
        #expect(handler.subscriptions.allSatisfy { $0.connection == .commands })
    }

    @Test func takesOnlyCommandTopics() {
        #expect(!handler.receive(HandlerFixture.message(topics.bridgeRequest("info"), "")))
        #expect(!handler.receive(HandlerFixture.message(topics.move("b1"), "{}")))
        #expect(!handler.receive(HandlerFixture.message("elsewhere/b1/set", "{}")))
        #expect(publisher.messages.isEmpty)
    }

    /// A success is answered only to whoever asked for an answer (a transaction or an MQTT 5
    /// response topic); the command reaches the board's session either way.
    @Test func successesAreAnsweredOnlyWhenAsked() {
        #expect(handler.receive(HandlerFixture.message(topics.set("b1"), #"{"new_game":{"white":"Doe, J"}}"#)))
        #expect(publisher.messages.filter { $0.topic == topics.response("b1") }.isEmpty)
        #expect(boards.session("b1")?.core.game.tags["White"] == "Doe, J", "the session started the game")
        publisher.clear()
        #expect(handler.receive(HandlerFixture.message(topics.set("b1"), #"{"new_game":{},"transaction":9}"#)))
        let answered = publisher.messages.filter { $0.topic == topics.response("b1") }
        #expect(answered.count == 1)
        #expect(try! JSONValue(parsing: answered[0].payload).objectValue?["transaction"] == 9)
        publisher.clear()
        #expect(
            handler.receive(HandlerFixture.message(topics.set("b1"), #"{"new_game":{}}"#, responseTopic: "me/answers")))
        #expect(publisher.messages.filter { $0.topic == "me/answers" }.count == 1)
    }

    @Test func aBadCommandIsAnsweredWithItsError() {
        #expect(handler.receive(HandlerFixture.message(topics.set("b1"), #"{"no_such_command":1}"#)))
        #expect(publisher.messages.map(\.topic) == [topics.response("b1")])
        #expect(answers.first?.objectValue?["status"] == "error")
    }

    /// A board nobody serves is an error; a board another bridge on the broker serves is
    /// that bridge's to answer.
    @Test func unknownBoardsAreRefusedAndOtherNodesBoardsLeftAlone() {
        #expect(handler.receive(HandlerFixture.message(topics.set("far-1"), #"{"new_game":{},"transaction":1}"#)))
        #expect(publisher.messages.isEmpty)
        #expect(handler.receive(HandlerFixture.message(topics.set("nobody"), #"{"transaction":2}"#)))
        #expect(publisher.messages.map(\.topic) == [topics.response("nobody")])
        #expect(answers.first?.objectValue?["error"]?.stringValue?.contains("nobody") == true)
    }

    /// Made-up board ids share one refusal budget: a flood of them is not answered each.
    @Test func aFloodOfUnknownBoardsIsRateLimited() {
        for index in 0..<300 {
            _ = handler.receive(HandlerFixture.message(topics.set("made-up-\(index)"), "{}"))
        }
        #expect(publisher.messages.count > 0)
        #expect(publisher.messages.count < 50)
    }
}

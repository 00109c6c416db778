import Testing

@testable import Bridge
@testable import Contract

@Suite struct TopicsTests {
    let topics = try! Topics(node: "hall-a")

    @Test func buildsBridgeTopics() {
        #expect(topics.base == "boardbridge")
        #expect(topics.bridgeState == "boardbridge/bridge/hall-a/state")
        #expect(topics.bridgeInfo == "boardbridge/bridge/hall-a/info")
        #expect(topics.bridgeRequest("restart") == "boardbridge/bridge/hall-a/request/restart")
        #expect(topics.bridgeResponse("restart") == "boardbridge/bridge/hall-a/response/restart")
    }

    @Test func buildsBoardTopics() {
        #expect(topics.boardState("board-07") == "boardbridge/board-07")
        #expect(topics.availability("board-07") == "boardbridge/board-07/availability")
        #expect(topics.connection("board-07") == "boardbridge/board-07/connection")
        #expect(topics.move("board-07") == "boardbridge/board-07/move")
        #expect(topics.event("board-07") == "boardbridge/board-07/event")
        #expect(topics.clock("board-07") == "boardbridge/board-07/clock")
        #expect(topics.pgn("board-07") == "boardbridge/board-07/pgn")
        #expect(topics.set("board-07") == "boardbridge/board-07/set")
        #expect(topics.set("board-07", command: "leds") == "boardbridge/board-07/set/leds")
        #expect(topics.response("board-07") == "boardbridge/board-07/response")
        #expect(topics.corrections("board-07") == "boardbridge/board-07/corrections")
        #expect(
            topics.retainedBoardTopics("b1") == [
                "boardbridge/b1", "boardbridge/b1/availability", "boardbridge/b1/connection", "boardbridge/b1/pgn",
                "boardbridge/b1/corrections",
            ])
    }

    @Test func multiLevelBase() throws {
        let site = try Topics(base: "club/boards", node: "n1")
        #expect(site.bridgeState == "club/boards/bridge/n1/state")
        #expect(site.move("b1") == "club/boards/b1/move")
        #expect(site.parse("club/boards/b1/set") == .boardCommand(board: "b1", name: nil))
        #expect(site.parse("boardbridge/b1/set") == nil)
    }

    @Test func subscriptions() {
        #expect(
            topics.subscriptions == [
                "boardbridge/+/set", "boardbridge/+/set/+", "boardbridge/bridge/hall-a/request/#",
            ])
    }

    @Test(arguments: [
        ("boardbridge/board-07/set", IncomingTopic?.some(.boardCommand(board: "board-07", name: nil))),
        ("boardbridge/board-07/set/leds", .boardCommand(board: "board-07", name: "leds")),
        ("boardbridge/unknown_board/set/mvoe", .boardCommand(board: "unknown_board", name: "mvoe")),
        ("boardbridge/bridge/hall-a/request/restart", .bridgeRequest(op: "restart")),
        ("boardbridge/bridge/hall-a/request/board/reconnect", .bridgeRequest(op: "board/reconnect")),
        ("boardbridge/bridge/hall-b/request/restart", nil),
        ("boardbridge/bridge/hall-a/response/restart", nil),
        ("boardbridge/bridge/hall-a/request", nil),
        ("boardbridge/bridge/set", .boardCommand(board: "bridge", name: nil)),
        ("boardbridge/bridge/set/leds", .boardCommand(board: "bridge", name: "leds")),
        ("boardbridge/bridge/hall-a/request/", .bridgeRequest(op: "")),
        ("boardbridge/bridge/hall-a/request//info", nil),
        ("boardbridge/board-07/", nil),
        ("boardbridge/board-07", nil),
        ("boardbridge/board-07/move", nil),
        ("boardbridge/board-07/set/leds/extra", nil),
        ("boardbridge/board-07/set/", .boardCommand(board: "board-07", name: "")),
        ("boardbridge/board-07//leds", nil),
        ("boardbridge//set", nil),
        ("boardbridge", nil),
        ("other/board-07/set", nil),
        ("boardbridgex/board-07/set", nil),
    ])
    func parsesIncomingTopics(topic: String, expected: IncomingTopic?) {
        #expect(topics.parse(topic) == expected)
    }

    @Test func validatesBoardIDs() throws {
        try Topics.validateBoardID("board-07")
        try Topics.validateBoardID("B_1")
        #expect(throws: TopicError.reserved("bridge")) { try Topics.validateBoardID("bridge") }
        #expect(throws: TopicError.empty("board id")) { try Topics.validateBoardID("") }
        #expect(throws: TopicError.invalidCharacter("board id", "a/b", "/")) { try Topics.validateBoardID("a/b") }
        #expect(throws: TopicError.invalidCharacter("board id", "a+", "+")) { try Topics.validateBoardID("a+") }
        #expect(throws: TopicError.invalidCharacter("board id", "tour é", " ")) { try Topics.validateBoardID("tour é") }
        #expect(throws: TopicError.tooLong("board id", String(repeating: "x", count: 65))) {
            try Topics.validateBoardID(String(repeating: "x", count: 65))
        }
        #expect(TopicError.reserved("bridge").description == "board id \"bridge\" is reserved for the bridge topics")
    }

    @Test func validatesBaseAndNode() {
        #expect(throws: TopicError.emptyLevel("base topic", "a//b")) { try Topics(base: "a//b", node: "n") }
        #expect(throws: TopicError.emptyLevel("base topic", "a/")) { try Topics(base: "a/", node: "n") }
        #expect(throws: TopicError.invalidCharacter("base topic", "a/#", "#")) { try Topics(base: "a/#", node: "n") }
        #expect(throws: TopicError.invalidCharacter("base topic", "$SYS", "$")) { try Topics(base: "$SYS", node: "n") }
        #expect(throws: TopicError.empty("base topic")) { try Topics(base: "", node: "n") }
        #expect(throws: TopicError.invalidCharacter("node", "hall a", " ")) { try Topics(node: "hall a") }
        #expect(
            TopicError.invalidCharacter("node", "hall a", " ").description == "node \"hall a\" may not contain \" \"")
    }
}

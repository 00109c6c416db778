import Testing

@testable import Bridge
@testable import Contract

@Suite struct BridgePeerWatchTests {
    let topics = try! Topics(node: "hall-a")
    let early = "2026-12-01T09:00:00.000Z"
    let start = "2026-12-01T10:00:00.000Z"
    let later = "2026-12-01T10:05:00.000Z"
    let hallA = "boardbridge/bridge/hall-a/info"
    let hallB = "boardbridge/bridge/hall-b/info"

    func watch(instance: String = "aaaa", started: String? = nil, boards: [String]) -> BridgePeerWatch {
        BridgePeerWatch(topics: topics, instance: instance, started: started ?? start, boards: boards)
    }

    /// An info payload as a bridge publishes it (the keys the watch reads).
    func info(
        node: String, instance: String? = nil, started: String? = nil, boards: [String], problems: String = ""
    ) -> [UInt8] {
        let list = boards.map { "{\"id\":\"\($0)\",\"name\":\"\($0)\",\"family\":\"chessnut\"}" }
        var fields = ["\"node\":\"\(node)\""]
        if let instance { fields.append("\"instance\":\"\(instance)\"") }
        if let started { fields.append("\"started\":\"\(started)\"") }
        if !problems.isEmpty { fields.append("\"problems\":[\(problems)]") }
        fields.append("\"boards\":[\(list.joined(separator: ","))]")
        return Array("{\(fields.joined(separator: ","))}".utf8)
    }

    func problems(_ peers: BridgePeerWatch) -> String {
        peers.conflicts.map(\.json.description).joined(separator: ",")
    }

    @Test func subscribesToEveryNodesInfo() {
        let peers = watch(boards: [])
        #expect(peers.subscriptions == ["boardbridge/bridge/+/info", "boardbridge-peers/bridge/+/info"])
        #expect(peers.isInfoTopic(hallB))
        #expect(peers.isInfoTopic(hallA))
        #expect(peers.isInfoTopic("boardbridge-peers/bridge/hall-b/info"))
        #expect(!peers.isInfoTopic("boardbridge-peers/hall-b/info"))
        #expect(!peers.isInfoTopic("boardbridge/bridge/hall-b/state"))
        #expect(!peers.isInfoTopic("boardbridge/bridge/a/b/info"))
        #expect(!peers.isInfoTopic("boardbridge/bridge//info"))
        #expect(!peers.isInfoTopic("other/bridge/hall-b/info"))
    }

    @Test func reportsBoardsAnotherNodeAlsoBridges() {
        var peers = watch(boards: ["r1-b01", "r1-b02", "r1-b03"])
        let found = peers.receive(topic: hallB, payload: info(node: "hall-b", boards: ["r1-b03", "r1-b01", "x"]))
        #expect(found == [.sharedBoards(node: "hall-b", boards: ["r1-b01", "r1-b03"])])
        #expect(peers.conflicts == found)
        // The same info again: nothing new.
        #expect(peers.receive(topic: hallB, payload: info(node: "hall-b", boards: ["r1-b03", "r1-b01"])).isEmpty)
        // A changed info with one of them left: the conflict narrows (and is reported as it is now).
        let narrowed = BridgeConflict.sharedBoards(node: "hall-b", boards: ["r1-b01"])
        #expect(peers.receive(topic: hallB, payload: info(node: "hall-b", boards: ["r1-b01"])) == [narrowed])
        #expect(peers.conflicts == [narrowed])
    }

    @Test func infoBroughtInUnderThePeersPrefixCounts() {
        var peers = watch(boards: ["b1"])
        let found = peers.receive(
            topic: "boardbridge-peers/bridge/hall-b/info", payload: info(node: "hall-b", boards: ["b1"]))
        #expect(found == [.sharedBoards(node: "hall-b", boards: ["b1"])])
        // The same node's info on both prefixes is one peer: clearing one clears it.
        peers.receive(topic: hallB, payload: [])
        #expect(peers.conflicts.isEmpty)
    }

    @Test func distinctBoardsAreNoConflict() {
        var peers = watch(boards: ["r1-b01"])
        #expect(peers.receive(topic: hallB, payload: info(node: "hall-b", boards: ["r2-b01"])).isEmpty)
        #expect(peers.conflicts.isEmpty)
    }

    @Test func aClearedOrUnreadableInfoForgetsThatNode() {
        var peers = watch(boards: ["b1"])
        peers.receive(topic: hallB, payload: info(node: "hall-b", boards: ["b1"]))
        #expect(peers.conflicts.count == 1)
        peers.receive(topic: hallB, payload: [])
        #expect(peers.conflicts.isEmpty)
        peers.receive(topic: hallB, payload: info(node: "hall-b", boards: ["b1"]))
        peers.receive(topic: hallB, payload: Array("{\"boards\":[".utf8))
        #expect(peers.conflicts.isEmpty)
    }

    @Test func adoptingABoardAnotherNodeHasIsAConflict() {
        var peers = watch(boards: ["b1"])
        peers.receive(topic: hallB, payload: info(node: "hall-b", boards: ["b2"]))
        #expect(peers.setOwnBoards(["b1", "b2"]) == [.sharedBoards(node: "hall-b", boards: ["b2"])])
    }

    @Test func ownEchoAndAnEarlierRunOfThisNodeAreNoConflict() {
        var peers = watch(instance: "aaaa", boards: ["b1"])
        // This run's own info, echoed by the broker.
        let own = info(node: "hall-a", instance: "aaaa", started: start, boards: ["b1"])
        #expect(peers.receive(topic: hallA, payload: own).isEmpty)
        // The retained info of the run before a crash: started earlier, knows nothing of this run.
        let predecessor = info(node: "hall-a", instance: "bbbb", started: early, boards: ["b1"])
        #expect(peers.receive(topic: hallA, payload: predecessor).isEmpty)
        // An info without an instance (an older version) tells nothing.
        #expect(peers.receive(topic: hallA, payload: info(node: "hall-a", boards: ["b1"])).isEmpty)
        #expect(peers.conflicts.isEmpty)
    }

    @Test func aSecondLiveBridgeOnThisNodeIsSeenByBoth() {
        var first = watch(instance: "aaaa", started: start, boards: ["b1"])
        var second = watch(instance: "bbbb", started: later, boards: ["b1"])
        // The second starts and finds the first's retained info: older, could be its own predecessor.
        let firstInfo = info(node: "hall-a", instance: "aaaa", started: start, boards: ["b1"])
        #expect(second.receive(topic: hallA, payload: firstInfo).isEmpty)
        // The first sees the second's info: a newer instance of its node is a live second bridge.
        let secondInfo = info(node: "hall-a", instance: "bbbb", started: later, boards: ["b1"])
        #expect(first.receive(topic: hallA, payload: secondInfo) == [.sameNode(instance: "bbbb")])
        // The first publishes its info again naming the second; now the second knows too.
        let firstAgain = info(
            node: "hall-a", instance: "aaaa", started: start, boards: ["b1"], problems: problems(first))
        #expect(second.receive(topic: hallA, payload: firstAgain) == [.sameNode(instance: "aaaa")])
        // The second's next info changes nothing for the first: no endless exchange.
        let secondAgain = info(
            node: "hall-a", instance: "bbbb", started: later, boards: ["b1"], problems: problems(second))
        #expect(first.receive(topic: hallA, payload: secondAgain).isEmpty)
    }

    @Test func problemsAreDocumentedJSON() {
        let board = BridgeConflict.sharedBoards(node: "hall-b", boards: ["b1", "b2"])
        #expect(board.json.description == #"{"problem":"duplicate_board","node":"hall-b","boards":["b1","b2"]}"#)
        let node = BridgeConflict.sameNode(instance: "00ff")
        #expect(node.json.description == #"{"problem":"duplicate_node","instance":"00ff"}"#)
    }

    @Test func instanceIDsAreSixteenHexDigitsAndDiffer() {
        let ids = (0..<50).map { _ in BridgePeerWatch.newInstanceID() }
        #expect(ids.allSatisfy { $0.count == 16 && $0.allSatisfy(\.isHexDigit) })
        #expect(Set(ids).count == ids.count)
    }

    @Test func infoCarriesInstanceStartedAndProblems() {
        var peers = watch(instance: "00000000000000aa", boards: ["b1"])
        peers.receive(topic: hallB, payload: info(node: "hall-b", boards: ["b1"]))
        let builder = MessageBuilder(topics: topics)
        let bridge = BridgeDescriptor(topics: topics, version: "0.1.0")
        let message = builder.bridgeInfo(bridge: bridge, boards: [], config: [:], peers: peers)
        let text = String(decoding: message.payload, as: UTF8.self)
        let expected =
            #"{"version":"0.1.0","node":"hall-a","base_topic":"boardbridge","instance":"00000000000000aa","#
            + #""started":"2026-12-01T10:00:00.000Z","#
            + #""problems":[{"problem":"duplicate_board","node":"hall-b","boards":["b1"]}],"boards":[]"#
        #expect(text.hasPrefix(expected))
    }

    /// On a broker shared by several hosts every bridge receives every board's commands:
    /// the watch names the node whose info lists a board, so only its owner answers.
    @Test func namesTheNodeThatOwnsABoard() {
        var peers = watch(boards: ["a1"])
        #expect(peers.owner(of: "b1") == nil)
        peers.receive(topic: hallB, payload: info(node: "hall-b", boards: ["b1", "b2"]))
        peers.receive(topic: "boardbridge-peers/bridge/hall-c/info", payload: info(node: "hall-c", boards: ["c1"]))
        #expect(peers.owner(of: "b2") == "hall-b")
        #expect(peers.owner(of: "c1") == "hall-c")
        #expect(peers.owner(of: "a1") == nil, "its own board is no peer's")
        #expect(peers.owner(of: "zz") == nil)
        peers.receive(topic: hallB, payload: [])
        #expect(peers.owner(of: "b1") == nil, "a cleared info frees the board")
    }

    @Test func tellsAPeerItHasNoBoardListOf() {
        var peers = watch(boards: ["a1"])
        #expect(peers.isUnknownPeer(hallB))
        #expect(!peers.isUnknownPeer("boardbridge/bridge/hall-a/info"), "its own node is no peer")
        #expect(!peers.isUnknownPeer("boardbridge/b1/state"), "not an info topic")
        peers.receive(topic: hallB, payload: info(node: "hall-b", boards: ["b1"]))
        #expect(!peers.isUnknownPeer(hallB))
        peers.receive(topic: hallB, payload: [])
        #expect(peers.isUnknownPeer(hallB), "a cleared info forgets the node")
    }
}

import Foundation
import JSON
import TestSupport
import Testing

@testable import Bridge
@testable import Contract

/// What the bridge is on the broker, through its handler: online with its info and every
/// board's retained topics at each connection, offline at the end, conflicts with other
/// bridges in its info, and the clean-up of what an earlier run left.
@Suite @MainActor struct AvailabilityHandlerTests {
    let topics = HandlerFixture.topics
    let publisher = RecordingPublisher()
    let boards: FakeBoards
    let store: StateStore
    let handler: AvailabilityHandler

    init() throws {
        boards = try FakeBoards(others: ["b1", "b2"])
        store = try StateStore(directory: try TestTools.temporaryDirectory("availability").path)
        handler = AvailabilityHandler(
            bridge: BridgeDescriptor(topics: topics, version: "1"), configuration: ["logging": ["level": "info"]],
            discovery: nil, boards: boards, publisher: publisher, store: store, logger: HandlerFixture.logger,
            cleanupDelay: 0)
    }

    private func info() -> JSONObject? {
        publisher.payloads(on: topics.bridgeInfo).last?.objectValue
    }

    @Test func everyConnectionPublishesOnlineInfoAndTheBoardsRetainedTopics() {
        handler.brokerConnected()
        #expect(publisher.messages.first?.topic == topics.bridgeState)
        #expect(publisher.payloads(on: topics.bridgeState).last?.objectValue?["state"] == "online")
        #expect(info()?["boards"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue } == ["b1", "b2"])
        #expect(info()?["config"] == ["logging": ["level": "info"]])
        #expect(boards.retainedPublished == 1)
        handler.brokerConnected()
        #expect(boards.retainedPublished == 2)
    }

    @Test func stoppingTakesEveryBoardAndTheBridgeOffline() {
        handler.stop()
        #expect(
            publisher.messages.map(\.topic) == [
                topics.availability("b1"), topics.availability("b2"), topics.bridgeState,
            ])
        #expect(publisher.messages.allSatisfy { $0.retain })
        #expect(publisher.payloads(on: topics.bridgeState).last?.objectValue?["state"] == "offline")
    }

    /// Another bridge that bridges one of these boards: the conflict is in this bridge's
    /// info at once; its info topics are the handler's, others are not.
    @Test func aBoardBridgedTwiceIsReportedInTheInfo() {
        let other = "boardbridge/bridge/hall-b/info"
        #expect(handler.subscriptions.map(\.filter).contains("boardbridge/bridge/+/info"))
        #expect(!handler.receive(HandlerFixture.message(topics.set("b1"), "{}")))
        let payload =
            #"{"node":"hall-b","instance":"bbbb","started":"2026-12-01T10:00:00.000Z","boards":[{"id":"b2"}]}"#
        #expect(handler.receive(HandlerFixture.message(other, payload, retain: true)))
        let problems = info()?["problems"]?.arrayValue ?? []
        #expect(problems.count == 1)
        #expect(problems.first?.description.contains("b2") == true)
        #expect(handler.peers.owner(of: "b2") == "hall-b")
    }

    /// A board of the last run that is no longer configured: its retained topics are cleared
    /// at the first connection (not again at the next), then this run's boards remembered.
    @Test func theFirstConnectionClearsWhatAnEarlierRunLeft() async throws {
        try store.write(
            try JSONEncoder().encode(AnnouncedRecord(boards: ["b1", "gone"], discovery: nil)),
            as: AnnouncedRecord.fileName)
        handler.start()
        handler.brokerConnected()
        #expect(await eventually { publisher.messages.contains { $0.topic == topics.availability("gone") } })
        let cleared = publisher.messages.filter { $0.topic.hasPrefix(topics.boardState("gone")) }
        #expect(cleared.allSatisfy { $0.payload.isEmpty && $0.retain })
        #expect(
            await eventually {
                (try? store.read(AnnouncedRecord.fileName))?.flatMap(AnnouncedRecord.decode)?.boards == ["b1", "b2"]
            })
        publisher.clear()
        handler.brokerConnected()
        #expect(!publisher.messages.contains { $0.topic.hasPrefix(topics.boardState("gone")) })
    }
}

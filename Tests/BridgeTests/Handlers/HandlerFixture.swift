import BoardKit
import Contract
import JSON
import Logging
import MQTT

@testable import Bridge

/// Boards for the handlers' tests: real sessions (``SessionHarness``) by id, recording what
/// the handlers ask of them.
@MainActor
final class FakeBoards: BoardDirectory {
    var harnesses: [String: SessionHarness] = [:]
    /// Boards known by id only (no session).
    var others: [String] = []
    var reconnected: [String] = []
    var retainedPublished = 0
    var identities: [String: String] = [:]

    init(sessions: [String] = [], others: [String] = []) throws {
        for id in sessions { harnesses[id] = try SessionHarness(id: id) }
        self.others = others
    }

    var ids: [String] { (Array(harnesses.keys) + others).sorted() }
    var descriptors: [BoardDescriptor] { ids.compactMap(descriptor) }

    func session(_ id: String) -> BoardSession? { harnesses[id]?.session }

    func descriptor(_ id: String) -> BoardDescriptor? {
        guard ids.contains(id) else { return nil }
        var board = BoardDescriptor(id: id, name: "Board \(id)", family: .chessnut)
        board.serialNumber = identities[id]
        return board
    }

    func reconnect(_ id: String) -> Bool {
        guard ids.contains(id) else { return false }
        reconnected.append(id)
        return true
    }

    func publishRetained() { retainedPublished += 1 }
}

/// What every handler test shares.
@MainActor
enum HandlerFixture {
    static let topics = try! Topics(base: "boardbridge", node: "hall-a")
    static let logger = Logger(label: "test", level: .error)

    /// An inbox over `boards`, answering through `publisher`.
    static func inbox(_ boards: any BoardDirectory, _ publisher: any MessagePublishing) -> Inbox {
        Inbox(
            topics: topics, parser: CommandParser(), boards: boards,
            refusals: RefusalReporter(logger: logger, publisher: publisher, builder: MessageBuilder(topics: topics)),
            publisher: publisher)
    }

    static func message(
        _ topic: String, _ payload: String, retain: Bool = false, responseTopic: String? = nil
    ) -> MQTTMessage {
        var properties = MQTTProperties.none
        properties.responseTopic = responseTopic
        return MQTTMessage(topic: topic, payload: Array(payload.utf8), retain: retain, properties: properties)
    }
}

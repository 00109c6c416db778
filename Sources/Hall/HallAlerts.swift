import Broadcast
import Contract
import FoundationEssentials
import JSON

/// What only the hall sees, summed up for MQTT and Home Assistant (issue #30, item 3): in
/// every running round, the boards silent for `orphan_after` (orphans) and the timed games
/// whose moves come without clock times. Published retained on
/// `<base>/bridge/hall/broadcast/alerts` whenever it changes, with the hall's availability
/// in `state` (its last will says `offline`):
///
///     {"state":"online","count":2,"orphan_boards":1,"games_without_clock_times":1,
///      "alerts":[{"alert":"orphan_board","round":"r1","board":3,"board_id":"b03",…},
///                {"alert":"no_clock_times","round":"r1","board":1,…}],
///      "timestamp":"…"}
///
/// The counts are exact; the list holds at most ``listLimit`` alerts (Home Assistant keeps
/// attributes small).
struct HallAlerts {
    /// The most alerts listed.
    static let listLimit = 32

    /// The summary last published, without its timestamp (`nil`: none yet).
    private(set) var published: JSONValue?

    /// `<base>/bridge/hall/broadcast/alerts` (docs/mqtt-contract.md).
    static func topic(base: String) -> String {
        "\(base)/\(Topics.bridgeLevel)/hall/broadcast/alerts"
    }

    /// The last will: the hall is gone, so nothing it alerted about is known any more.
    static let offline: JSONValue = [
        "state": "offline", "count": 0, "orphan_boards": 0, "games_without_clock_times": 0, "alerts": [],
    ]

    /// The summary of `broadcast`, whose orphans are `orphans` (``HallBroadcast/orphans(at:)``).
    static func summary(of broadcast: HallBroadcast, orphans: [String: [BroadcastPairing]]) -> JSONValue {
        var alerts: [JSONValue] = []
        var orphanCount = 0
        var unclockedCount = 0
        for name in broadcast.order {
            guard let state = broadcast.rounds[name], state.running else { continue }
            for pairing in orphans[name] ?? [] {
                orphanCount += 1
                alerts.append(alert("orphan_board", round: name, pairing))
            }
            for pairing in state.feed.gamesWithoutClockTimes() {
                unclockedCount += 1
                alerts.append(alert("no_clock_times", round: name, pairing))
            }
        }
        return [
            "state": "online", "count": .number(Double(orphanCount + unclockedCount)),
            "orphan_boards": .number(Double(orphanCount)),
            "games_without_clock_times": .number(Double(unclockedCount)),
            "alerts": .array(Array(alerts.prefix(listLimit))),
        ]
    }

    private static func alert(_ kind: String, round: String, _ pairing: BroadcastPairing) -> JSONValue {
        var object = HallBroadcast.json(pairing).objectValue ?? [:]
        object["alert"] = .string(kind)
        object["round"] = .string(round)
        return .object(object)
    }

    /// The payload to publish for `summary` (stamped with `date`), or `nil` when it says what
    /// was published last; `force` publishes it all the same (a new connection, after the
    /// last will may have replaced it).
    mutating func payload(for summary: JSONValue, date: Date, force: Bool = false) -> [UInt8]? {
        guard force || summary != published else { return nil }
        published = summary
        var object = summary.objectValue ?? [:]
        object["timestamp"] = .string(ISO8601Timestamp.string(from: date))
        return JSONValue.object(object).encoded()
    }
}

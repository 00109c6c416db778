/// `GET /metrics`: every node's health in the Prometheus text exposition format 0.0.4, from
/// the retained health reports the hall sees (docs/hall.md, Metrics).
///
/// A node that is offline (its last will) or whose report went stale (``HallModel/isUp(_:now:)``)
/// shows `boardbridge_up 0` and none of its other figures: a scrape never passes old numbers
/// off as current ones.
public enum HallMetrics {
    /// The `Content-Type` of the exposition.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// One metric family: its name, type, help text and how a node's or a board's value is read.
    struct Family: Sendable {
        enum Source: Sendable {
            case node(@Sendable (HallNodeHealth) -> Double?)
            case board(@Sendable (HallBoardHealth) -> Double?)
        }
        let name: String
        let type: String
        let help: String
        let source: Source
    }

    static let families: [Family] = [
        Family(
            name: "boardbridge_process_rss_bytes", type: "gauge", help: "Resident memory of the bridge process.",
            source: .node { $0.rssBytes }),
        Family(
            name: "boardbridge_process_cpu_percent", type: "gauge",
            help: "Share of one core the bridge used between its last two reports, in percent.",
            source: .node { $0.cpuPercent }),
        Family(
            name: "boardbridge_move_handling_p50_seconds", type: "gauge",
            help: "The bridge's own time per move over its latest moves (frame to PUBLISH handed over), median.",
            source: .node { $0.moveHandlingMedian }),
        Family(
            name: "boardbridge_move_handling_p99_seconds", type: "gauge",
            help: "The bridge's own time per move over its latest moves, 99th percentile.",
            source: .node { $0.moveHandlingP99 }),
        Family(
            name: "boardbridge_mqtt_connected", type: "gauge",
            help: "1 when the bridge's broker connection is up.",
            source: .node { $0.mqttConnected.map(HallMetrics.number) }),
        Family(
            name: "boardbridge_mqtt_queued", type: "gauge",
            help: "Messages the bridge has waiting to be sent or confirmed.",
            source: .node { $0.mqttQueued }),
        Family(
            name: "boardbridge_mqtt_dropped_total", type: "counter",
            help: "Messages the bridge dropped because its outgoing queue was full.", source: .node { $0.mqttDropped }),
        Family(
            name: "boardbridge_state_directory_problem", type: "gauge",
            help: "1 when the bridge's state directory is not writable or a save failed since the previous report.",
            source: .node { $0.stateDirectoryProblem.map(HallMetrics.number) }),
        Family(
            name: "boardbridge_board_connected", type: "gauge", help: "1 when the board's link is ready.",
            source: .board { $0.connection.map { $0 == "ready" ? 1 : 0 } }),
        Family(
            name: "boardbridge_board_stalled", type: "gauge",
            help: "1 when the board is connected but has sent nothing for health.stall_after seconds.",
            source: .board { HallMetrics.number($0.stalled) }),
        Family(
            name: "boardbridge_board_notifications_per_second", type: "gauge",
            help: "Frames per second the board sent between the last two reports.",
            source: .board { $0.notificationsPerSecond }),
        Family(
            name: "boardbridge_board_reconnects_total", type: "counter",
            help: "Links to the board re-established since the bridge started.", source: .board { $0.reconnects }),
        Family(
            name: "boardbridge_board_missing_acks_total", type: "counter",
            help: "Unacknowledged writes and unanswered handshakes since the bridge started.",
            source: .board { $0.missingAcks }),
        Family(
            name: "boardbridge_board_rssi_dbm", type: "gauge", help: "Signal strength of the board's link.",
            source: .board { $0.rssi }),
        Family(
            name: "boardbridge_board_seconds_since_last_frame", type: "gauge",
            help: "Seconds since the board's last frame, as of the report.", source: .board { $0.secondsSinceLastFrame }
        ),
    ]

    /// The exposition of `model` at `now` (ms since 1970).
    public static func render(_ model: HallModel, now: Double) -> String {
        let names = model.nodes.keys.sorted()
        let up = names.filter { model.isUp($0, now: now) }
        var text = ""
        text.reserveCapacity(256 + up.count * 1024 + model.boards.count * 700)
        header(&text, "boardbridge_up", "gauge", "1 when the bridge host is online and its health report is fresh.")
        for name in names { sample(&text, "boardbridge_up", [("node", name)], up.contains(name) ? 1 : 0) }
        header(
            &text, "boardbridge_health_report_age_seconds", "gauge",
            "Seconds since the bridge host's last health report.")
        for name in names {
            guard let health = model.nodes[name]?.health else { continue }
            sample(&text, "boardbridge_health_report_age_seconds", [("node", name)], health.age(now: now))
        }
        let reports = up.compactMap { name in model.nodes[name]?.health.map { (name, $0) } }
        for family in families {
            header(&text, family.name, family.type, family.help)
            for (name, health) in reports {
                switch family.source {
                case .node(let value):
                    if let value = value(health) { sample(&text, family.name, [("node", name)], value) }
                case .board(let value):
                    for id in health.boards.keys.sorted() {
                        guard let value = value(health.boards[id]!) else { continue }
                        sample(&text, family.name, [("node", name), ("board", id)], value)
                    }
                }
            }
        }
        return text
    }

    static func number(_ flag: Bool) -> Double { flag ? 1 : 0 }

    static func header(_ text: inout String, _ name: String, _ type: String, _ help: String) {
        text += "# HELP \(name) \(escapeHelp(help))\n# TYPE \(name) \(type)\n"
    }

    static func sample(_ text: inout String, _ name: String, _ labels: [(String, String)], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " " + format(value) + "\n"
    }

    /// A label value: `\`, `"` and a line feed escaped (the format's only escapes).
    static func escapeLabel(_ value: String) -> String {
        guard value.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" }) else { return value }
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    /// A help text: `\` and a line feed escaped.
    static func escapeHelp(_ value: String) -> String {
        value.replacing("\\", with: "\\\\").replacing("\n", with: "\\n")
    }

    /// A sample value as Go's `ParseFloat` reads it: whole numbers without a fraction,
    /// `NaN`, `+Inf`, `-Inf`.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}

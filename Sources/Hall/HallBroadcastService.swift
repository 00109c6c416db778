import Broadcast
import BroadcastRelay
import Config
import Contract
import FoundationEssentials
import HTTP
import JSON
import Logging
import MainLoop
import SystemCalls

/// The broadcast side of `boardbridge hall` (docs/hall.md, Broadcasting a round): serves
/// `/broadcast/<round>/…` to polling relays, writes the same files into each round's
/// `files_dir`, pushes each round to its relay, publishes orphan-board alerts and the alerts
/// summary (``HallAlerts``) on MQTT,
/// takes the arbiter's "start round", and reports all of it in `/api/broadcast` and the
/// event stream (`broadcast` events).
@MainActor
final class HallBroadcastService {
    private(set) var broadcast: HallBroadcast
    private let configuration: BroadcastConfiguration
    private let logger: Logger
    private let topics: Topics
    private let publish: @MainActor (String, [UInt8], Bool) throws -> Void
    private let notify: @MainActor (String, String) -> Void
    /// Records an arbiter's action in the audit log: board, action, detail, arbiter, transaction.
    private let recordAction: (@MainActor (String, String, JSONValue, String, String?) -> Void)?
    /// Rounds started so far (numbers the transactions of their commands).
    private var startedRounds = 0
    private var pushers: [String: RelayPusher] = [:]
    private var pushReports: [String: RelayPushReport] = [:]
    /// What each output file last held (absolute path → bytes).
    private var written: [String: [UInt8]] = [:]
    private var dirty: Set<String> = []
    private var writeFailures: [String: String] = [:]
    /// The orphan game ids last published, by round.
    private var publishedOrphans: [String: [String]] = [:]
    /// The alerts summary last published (``HallAlerts``).
    private var alerts = HallAlerts()
    private var ticker: LoopTimer?
    private var pairingsWatcher: LoopTimer?
    /// Each round's pairings file as last read (round → bytes), and why the last change
    /// was refused (round → message), for the hall view.
    private var pairingsBytes: [String: [UInt8]] = [:]
    private var pairingsErrors: [String: String] = [:]

    /// How often the pairings files are looked at, in seconds.
    static let pairingsPollInterval = 2

    /// `publish(topic, payload, retain)` sends on the hall's broker connection, `notify(event,
    /// data)` goes to every event stream, `recordAction` writes the audit log.
    init(
        configuration: BroadcastConfiguration, topics: Topics, logger: Logger,
        publish: @escaping @MainActor (String, [UInt8], Bool) throws -> Void,
        notify: @escaping @MainActor (String, String) -> Void,
        recordAction: (@MainActor (String, String, JSONValue, String, String?) -> Void)? = nil
    ) {
        self.recordAction = recordAction
        self.configuration = configuration
        self.topics = topics
        self.logger = logger.labelled("broadcast")
        self.publish = publish
        self.notify = notify
        broadcast = HallBroadcast(configuration: configuration, at: Self.now())
        dirty = Set(broadcast.order)
        for round in configuration.rounds {
            if let warning = round.round.sizeWarning {
                self.logger.warning("round too big for lichess", [("warning", warning)])
            }
        }
    }

    /// Starts the pushers and the once-a-second tick (files, delayed content, orphans).
    func start() {
        guard !broadcast.isEmpty else { return }
        for round in configuration.rounds {
            let name = round.round.round
            guard let push = round.push else { continue }
            let pusher = RelayPusher(
                settings: RelayPushSettings(
                    url: push.url, token: push.token.reveal(), userAgent: "BoardBridge/\(BoardBridgeVersion.current)"),
                pollWhileDelayed: round.delay > 0,
                body: { [weak self] in self?.broadcast.render(round: name, file: "games.pgn", at: Self.now()) ?? "" },
                now: { Self.now() })
            pusher.onReport = { [weak self] report in self?.pushed(round: name, report) }
            pushers[name] = pusher
        }
        ticker = MainLoop.every(1) { [weak self] in self?.tick() }
        for round in configuration.rounds {
            guard let file = round.pairingsFile, case .success(let bytes) = file.read() else { continue }
            pairingsBytes[round.round.round] = bytes
        }
        pairingsWatcher = MainLoop.every(Double(Self.pairingsPollInterval)) { [weak self] in self?.reloadPairings() }
        tick()
        logger.info("broadcasting", [("rounds", broadcast.order.joined(separator: ","))])
    }

    /// Stops the tick and the pushers.
    func stop() {
        ticker?.cancel()
        ticker = nil
        pairingsWatcher?.cancel()
        pairingsWatcher = nil
        for pusher in pushers.values { pusher.stop() }
    }

    /// A board's view changed (one of its messages arrived).
    func boardChanged(_ board: HallBoard) {
        guard !broadcast.isEmpty else { return }
        for name in broadcast.update(board: board, at: Self.now()) {
            dirty.insert(name)
            pushers[name]?.contentChanged()
        }
    }

    /// The status for a (re)connecting event stream.
    var statusText: String? { broadcast.isEmpty ? nil : status().encodedString() }

    /// Answers the broadcast routes, else `nil`.
    func answer(_ request: HTTPRequest, router: HallRouter) -> HTTPReply? {
        if let response = broadcast.respond(to: request, at: Self.now()) { return .response(response) }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, parts[0].isEmpty, parts[1] == "api", parts[2] == "broadcast" else { return nil }
        switch (request.method, parts.count) {
        case ("GET", 3): return .response(.json(status()))
        case ("POST", 5) where parts[4] == "start":
            let arbiter: String
            switch router.arbiter(of: request) {
            case .refused(let refusal): return .response(refusal)
            case .signed(let name): arbiter = name
            }
            guard let commands = broadcast.start(round: parts[3], at: Self.now()) else {
                return .response(.plain(404, "no round \"\(parts[3])\""))
            }
            var failed: [JSONValue] = []
            startedRounds += 1
            for (index, (board, command)) in commands.enumerated() {
                // Each new_game carries a transaction, so its answer completes the audit entry.
                var object = (try? JSONValue(parsing: Array(command.utf8)))?.objectValue ?? [:]
                let given = object["transaction"]?.stringValue ?? "round-\(startedRounds)-\(index + 1)"
                let transaction = "hall-" + given
                object["transaction"] = .string(transaction)
                do {
                    try publish(topics.set(board), JSONValue.object(object).encoded(), false)
                    recordAction?(
                        board, "start_round", ["round": .string(parts[3]), "new_game": object["new_game"] ?? .null],
                        arbiter, transaction)
                } catch {
                    failed.append(["board_id": .string(board), "error": .string("\(error)")])
                }
            }
            logger.notice(
                "round started",
                [
                    ("round", parts[3]), ("boards", "\(commands.count)"), ("arbiter", arbiter),
                    ("client", request.clientAddress),
                ])
            dirty.insert(parts[3])
            pushers[parts[3]]?.contentChanged()
            tick()
            notify("broadcast", status().encodedString())
            let sent = commands.count - failed.count
            return .response(
                .json(
                    [
                        "status": "started", "round": .string(parts[3]), "sent": .number(Double(sent)),
                        "failed": .array(failed),
                    ], status: failed.isEmpty ? 202 : 503))
        case (_, 3):
            return .response(.plain(405, "method not allowed"))
        case (_, 5) where parts[4] == "start":
            return .response(.plain(405, "method not allowed"))
        default:
            return .response(.plain(404, "not found"))
        }
    }

    // MARK: Pairings

    /// Reads each round's pairings file again; one whose bytes changed is checked as at
    /// start and applied, or refused (logged with its file:line:column; the round keeps
    /// its present pairings).
    func reloadPairings() {
        var changed = false
        for round in configuration.rounds {
            let name = round.round.round
            guard let file = round.pairingsFile else { continue }
            let read = file.read()
            if case .success(let bytes) = read, bytes == pairingsBytes[name] {
                // Back to the pairings in use (a refused edit undone).
                if pairingsErrors.removeValue(forKey: name) != nil { changed = true }
                continue
            }
            let parsed = read.flatMap(file.parse).flatMap { parsed in
                parsed.round == name
                    ? .success(parsed)
                    : .failure(
                        BroadcastPairingsFile.Failure(
                            message: "\(file.path): the round is now \"\(parsed.round)\", not \"\(name)\""))
            }
            switch parsed {
            case .failure(let failure):
                guard pairingsErrors[name] != failure.message else { continue }
                pairingsErrors[name] = failure.message
                logger.error(
                    "pairings file refused, the round keeps its pairings",
                    [("round", name), ("error", failure.message)])
            case .success(let parsed):
                if case .success(let bytes) = read { pairingsBytes[name] = bytes }
                let wasRefused = pairingsErrors.removeValue(forKey: name) != nil
                guard broadcast.replacePairings(round: name, with: parsed) else {
                    changed = changed || wasRefused
                    continue
                }
                logger.notice(
                    "pairings reloaded", [("round", name), ("games", "\(parsed.pairings.count)"), ("file", file.path)])
                dirty.insert(name)
                pushers[name]?.contentChanged()
            }
            changed = true
        }
        if changed {
            tick()
            notify("broadcast", status().encodedString())
        }
    }

    // MARK: Tick

    private func tick() {
        let now = Self.now()
        for round in configuration.rounds {
            let name = round.round.round
            guard let directory = round.filesDirectory, dirty.contains(name) || round.delay > 0 else { continue }
            writeFiles(round: name, into: directory, at: now)
        }
        dirty = []
        let orphans = broadcast.orphans(at: now)
        checkOrphans(orphans)
        publishAlerts(orphans: orphans)
    }

    /// Publishes the alerts summary (``HallAlerts``) when it changed; `force`: all the same
    /// (a new connection: the last will may have replaced it). `orphans`: the tick's, else
    /// looked for now.
    func publishAlerts(force: Bool = false, orphans: [String: [BroadcastPairing]]? = nil) {
        guard !broadcast.isEmpty else { return }
        let summary = HallAlerts.summary(of: broadcast, orphans: orphans ?? broadcast.orphans(at: Self.now()))
        guard let payload = alerts.payload(for: summary, date: Date(), force: force) else { return }
        do {
            try publish(HallAlerts.topic(base: topics.base), payload, true)
        } catch {
            logger.error("cannot publish the alerts", [("error", "\(error)")])
        }
    }

    /// Writes the files whose content changed, each atomically (a reader sees the old file
    /// or the new, never a part).
    private func writeFiles(round name: String, into directory: String, at now: Double) {
        if (try? FileSystem.isDirectory(directory)) != true {
            try? FileSystem.createDirectory(directory, permissions: 0o755)
        }
        var failure: String?
        for file in broadcast.files(round: name, at: now) {
            let path = directory + "/" + file.name
            let bytes = Array(file.text.utf8)
            guard written[path] != bytes else { continue }
            do {
                try FileSystem.replaceAtomically(
                    path, with: bytes, temporaryPath: directory + "/." + file.name + ".tmp", durably: false,
                    permissions: 0o644)
                written[path] = bytes
            } catch {
                failure = "\(error)"
            }
        }
        if writeFailures[name] != failure {
            writeFailures[name] = failure
            if let failure {
                logger.error("cannot write broadcast files", [("round", name), ("error", failure)])
            } else {
                logger.info("broadcast files written", [("round", name), ("directory", directory)])
            }
            notify("broadcast", status().encodedString())
        }
    }

    private func checkOrphans(_ orphans: [String: [BroadcastPairing]]) {
        var changed = false
        for name in broadcast.order where broadcast.rounds[name]?.running == true {
            let pairings = orphans[name] ?? []
            let ids = pairings.map(\.gameID)
            guard publishedOrphans[name] != ids else { continue }
            let newly = pairings.filter { !(publishedOrphans[name] ?? []).contains($0.gameID) }
            publishedOrphans[name] = ids
            changed = true
            for pairing in newly {
                logger.warning(
                    "orphan board",
                    [("round", name), ("board", "\(pairing.boardNumber)"), ("board_id", pairing.boardID ?? "")])
            }
            let payload: JSONValue = [
                "round": .string(name), "orphan_after": .number(broadcast.orphanAfter),
                "orphans": .array(pairings.map(HallBroadcast.json)),
                "timestamp": .string(ISO8601Timestamp.string(from: Date())),
            ]
            do {
                try publish(Self.orphanTopic(base: topics.base, round: name), payload.encoded(), true)
            } catch {
                logger.error("cannot publish orphan alert", [("round", name), ("error", "\(error)")])
            }
        }
        if changed { notify("broadcast", status().encodedString()) }
    }

    /// `<base>/bridge/hall/broadcast/<round>/orphans` (docs/mqtt-contract.md).
    nonisolated static func orphanTopic(base: String, round: String) -> String {
        "\(base)/\(Topics.bridgeLevel)/hall/broadcast/\(round)/orphans"
    }

    // MARK: Push

    private func pushed(round name: String, _ report: RelayPushReport) {
        let previous = pushReports[name]
        pushReports[name] = report
        if let failure = report.failure {
            logger.warning(
                "push failed", [("round", name), ("error", failure), ("failures", "\(report.failures)")])
        } else if previous?.failure != nil {
            logger.info("push accepted again", [("round", name)])
        }
        for error in report.gameErrors where !(previous?.gameErrors.contains(error) ?? false) {
            logger.warning(
                "relay refused a game",
                [("round", name), ("game", error.gameID ?? error.players), ("error", error.error)])
        }
        if previous != report { notify("broadcast", status().encodedString()) }
    }

    // MARK: Status

    private func status() -> JSONValue {
        guard case .array(var rounds) = broadcast.status(at: Self.now()) else { return ["rounds": []] }
        for index in rounds.indices {
            guard var round = rounds[index].objectValue, let name = round["round"]?.stringValue else { continue }
            round["files_error"] = writeFailures[name].map(JSONValue.string) ?? .null
            round["pairings_error"] = pairingsErrors[name].map(JSONValue.string) ?? .null
            if let report = pushReports[name] {
                round["push_report"] = [
                    "status": report.status.map { .number(Double($0)) } ?? .null,
                    "error": report.failure.map(JSONValue.string) ?? .null,
                    "failures": .number(Double(report.failures)),
                    "game_errors": .array(
                        report.gameErrors.map { error in
                            [
                                "game_id": error.gameID.map(JSONValue.string) ?? .null,
                                "players": .string(error.players), "error": .string(error.error),
                            ]
                        }),
                    "timestamp": .string(ISO8601Timestamp.string(from: Date(timeIntervalSince1970: report.time))),
                ]
            }
            rounds[index] = .object(round)
        }
        return ["rounds": .array(rounds)]
    }

    static func now() -> Double { Date().timeIntervalSince1970 }
}

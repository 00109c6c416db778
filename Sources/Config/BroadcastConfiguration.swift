public import Broadcast

/// The `hall.broadcast:` section: the rounds the hall serves to relays (docs/hall.md,
/// Broadcasting a round).
public struct BroadcastConfiguration: Sendable, Equatable {
    /// A board in a running round that has sent nothing for this many seconds is an
    /// orphan (alert in the hall view and on MQTT; default 300).
    public var orphanAfter: Double
    /// The rounds, in the order of the file.
    public var rounds: [RoundConfiguration]

    /// One round.
    public struct RoundConfiguration: Sendable, Equatable {
        /// The round and its pairings, read from the pairings file.
        public var round: BroadcastRound
        /// Seconds every relay output stays behind the boards (0–3600; the hall view never is).
        public var delay: Double
        /// Whether the round is running when the hall starts (a restart mid-round); otherwise
        /// it runs from the arbiter's "start round".
        public var running: Bool
        /// A folder the outputs are also written into, atomically, when set.
        public var filesDirectory: String?
        /// Where the round's PGN is pushed, when set.
        public var push: Push?

        /// The pairings file the round was read from (the hall re-reads it when it changes);
        /// `nil` for a round built in code.
        public var pairingsFile: BroadcastPairingsFile?

        /// A lichess-compatible push endpoint and its token.
        public struct Push: Sendable, Equatable {
            /// `https://lichess.org/api/broadcast/round/<id>/push`.
            public var url: String
            /// The bearer token (`token_file` / `token_env`).
            public var token: Secret

            /// Creates the pair.
            public init(url: String, token: Secret) {
                self.url = url
                self.token = token
            }
        }

        /// A round as given.
        public init(
            round: BroadcastRound, delay: Double = 0, running: Bool = false, filesDirectory: String? = nil,
            push: Push? = nil, pairingsFile: BroadcastPairingsFile? = nil
        ) {
            self.pairingsFile = pairingsFile
            self.round = round
            self.delay = delay
            self.running = running
            self.filesDirectory = filesDirectory
            self.push = push
        }
    }

    /// The defaults (no round), or the given values.
    public init(orphanAfter: Double = 300, rounds: [RoundConfiguration] = []) {
        self.orphanAfter = orphanAfter
        self.rounds = rounds
    }

    static let keys = ["orphan_after", "rounds"]
    static let roundKeys = [
        "round", "pairings_file", "event", "site", "date", "time_control", "delay", "running", "files_dir", "push",
        "number",
    ]

    static func read(_ section: ConfigMapping, reader: ConfigReader) -> BroadcastConfiguration {
        var broadcast = BroadcastConfiguration()
        broadcast.orphanAfter = section.double("orphan_after", in: 10...86_400, default: broadcast.orphanAfter)
        var names: [String: String] = [:]
        for (index, (path, node)) in (section.list("rounds") ?? []).enumerated() {
            guard let mapping = reader.mapping(node, path: path, keys: roundKeys),
                var round = readRound(mapping, reader: reader)
            else { continue }
            // `Round "final.1"` has no round number: a named round is numbered by `number:`,
            // else by its place in the list.
            let number =
                mapping.int("number", in: 1...999) ?? (BroadcastRound.isNumber(round.round.round) ? nil : index + 1)
            round.round.number = number
            round.pairingsFile?.number = number
            if let first = names[round.round.round] {
                reader.fail(
                    mapping.path("round"), "round \(ConfigReader.quote(round.round.round)) is also \(first)",
                    at: mapping.value("round")?.mark ?? mapping.node.mark)
                continue
            }
            names[round.round.round] = path
            broadcast.rounds.append(round)
        }
        return broadcast
    }

    /// What works but should be looked at (`check-config` prints them): rounds bigger than
    /// lichess keeps.
    public var warnings: [String] {
        rounds.enumerated().compactMap { index, round in
            round.round.sizeWarning.map { "hall.broadcast.rounds[\(index)]: \($0)" }
        }
    }

    /// Whether `name` can be a round's URL path segment and file name: 1–32 of `A–Z a–z 0–9 . _ -`,
    /// not `.` or `..`.
    public static func isRoundName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 32 && name != "." && name != ".."
            && name.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                        || scalar == "." || scalar == "_" || scalar == "-")
            }
    }

    private static func readRound(_ mapping: ConfigMapping, reader: ConfigReader) -> RoundConfiguration? {
        let name = mapping.nonEmptyString("round")
        if let name, !isRoundName(name) {
            reader.fail(
                mapping.path("round"), "must be 1 to 32 of A-Z a-z 0-9 . _ - (it names the URL and the files)",
                at: mapping.value("round")?.mark)
            return nil
        }
        let delay = mapping.double("delay", in: 0...BroadcastRoundFeed.maxDelay, default: 0)
        let running = mapping.bool("running", default: false)
        var filesDirectory: String?
        if let node = mapping.value("files_dir"), let text = reader.string(node, path: mapping.path("files_dir")),
            !text.isEmpty
        {
            let path = ConfigFiles.resolve(text, against: reader.baseDirectory)
            if let problem = ConfigFiles.directoryProblem(path) {
                reader.fail(mapping.path("files_dir"), "\(ConfigReader.quote(path)) \(problem)", at: node.mark)
            }
            filesDirectory = path
        }
        var push: RoundConfiguration.Push?
        if let section = mapping.mapping("push", keys: ["url", "token", "token_file", "token_env"]) {
            let url = section.nonEmptyString("url")
            if url == nil { section.missing("url") }
            if let url, !(url.hasPrefix("https://") || url.hasPrefix("http://")) {
                reader.fail(section.path("url"), "expected an http:// or https:// URL", at: section.value("url")?.mark)
            }
            let token = reader.secret(in: section, key: "token")
            if token == nil, !["token", "token_file", "token_env"].contains(where: section.has) {
                section.missing("token_file")
            }
            if let url, let token { push = .init(url: url, token: token) }
        }
        guard let fileNode = mapping.value("pairings_file") else {
            mapping.missing("pairings_file")
            return nil
        }
        guard let text = reader.string(fileNode, path: mapping.path("pairings_file")) else { return nil }
        let file = ConfigFiles.resolve(text, against: reader.baseDirectory)
        let source = BroadcastPairingsFile(
            path: file, round: name, event: mapping.nonEmptyString("event"), site: mapping.nonEmptyString("site"),
            date: mapping.nonEmptyString("date"), timeControl: mapping.nonEmptyString("time_control"))
        if name == nil, !file.lowercased().hasSuffix(".json"), !file.lowercased().hasSuffix(".pgn") {
            mapping.missing("round")
            return nil
        }
        let round: BroadcastRound
        switch source.read().flatMap(source.parse) {
        case .failure(let failure):
            reader.fail(mapping.path("pairings_file"), failure.message, at: fileNode.mark)
            return nil
        case .success(let parsed): round = parsed
        }
        return RoundConfiguration(
            round: round, delay: delay, running: running, filesDirectory: filesDirectory, push: push,
            pairingsFile: source)
    }
}

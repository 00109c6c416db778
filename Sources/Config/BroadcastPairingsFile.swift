public import Broadcast

/// A round's pairings file and the round's settings that complete or override it
/// (`round`, `event`, `site`, `date`, `time_control`): read when the configuration is
/// loaded, and again by the hall when the file changes mid-round (docs/broadcast.md,
/// Changing the pairings mid-round).
public struct BroadcastPairingsFile: Sendable, Equatable {
    /// The absolute path of the file (`.json`: JSON, `.pgn`: PGN, else CSV).
    public var path: String
    /// The round's name as configured (required for a CSV file).
    public var round: String?
    /// `event`, `site`, `date`, `time_control` as configured (they win over the file's).
    public var event: String?, site: String?, date: String?, timeControl: String?
    /// The round's number for the `Round` tag, when its name is not one (``BroadcastRound/number``).
    public var number: Int?

    /// Why the file cannot be used: a sentence that names the file and, for a syntax
    /// error, its line and column (`/p/round5.csv:3:7: …`).
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The sentence.
        public var message: String
        /// The sentence.
        public var description: String { message }

        /// A failure saying `message`.
        public init(message: String) { self.message = message }
    }

    /// The file with the given settings.
    public init(
        path: String, round: String?, event: String? = nil, site: String? = nil, date: String? = nil,
        timeControl: String? = nil
    ) {
        self.path = path
        self.round = round
        self.event = event
        self.site = site
        self.date = date
        self.timeControl = timeControl
    }

    /// The file's bytes (at most 1 MiB), or why it cannot be read.
    public func read() -> Result<[UInt8], Failure> {
        ConfigFiles.read(path).mapError { problem in
            Failure(message: "cannot read \(ConfigReader.quote(path)): \(problem.message)")
        }
    }

    /// The round `bytes` describe, checked as at start: the format, unique boards and games,
    /// a round name usable in URLs, board ids usable in topics.
    public func parse(_ bytes: [UInt8]) -> Result<BroadcastRound, Failure> {
        guard let content = String(validating: bytes, as: UTF8.self) else {
            return .failure(Failure(message: "\(path) is not UTF-8 text"))
        }
        var round: BroadcastRound
        do {
            if path.lowercased().hasSuffix(".json") {
                round = try BroadcastRound(json: content)
                if let name = self.round, name != round.round {
                    round = try BroadcastRound(
                        round: name, event: round.event, site: round.site, date: round.date,
                        timeControl: round.timeControl, pairings: round.pairings)
                }
                round.event = event ?? round.event
                round.site = site ?? round.site
                round.date = date ?? round.date
                round.timeControl = timeControl ?? round.timeControl
            } else if path.lowercased().hasSuffix(".pgn") {
                round = try BroadcastRound(
                    pgn: content, round: self.round, event: event, site: site, date: date, timeControl: timeControl)
            } else {
                guard let name = self.round else {
                    return .failure(Failure(message: "\(path): a CSV pairings file needs the round's name"))
                }
                round = try BroadcastRound(
                    csv: content, round: name, event: event, site: site, date: date, timeControl: timeControl)
            }
        } catch {
            let place = error.line > 0 ? "\(path):\(error.line):\(error.column)" : path
            return .failure(Failure(message: "\(place): \(error.message)"))
        }
        round.number = number
        guard BroadcastConfiguration.isRoundName(round.round) else {
            return .failure(
                Failure(
                    message: "\(path): round \(ConfigReader.quote(round.round)) must be 1 to 32 of A-Z a-z 0-9 . _ -"))
        }
        for pairing in round.pairings {
            if let board = pairing.boardID, let problem = TopicRules.boardIDProblem(in: board) {
                return .failure(
                    Failure(
                        message:
                            "\(path): board \(pairing.boardNumber): board id \(ConfigReader.quote(board)) \(problem)"))
            }
        }
        return .success(round)
    }
}

public import FoundationEssentials

/// One stage of a time control: `moves` moves (or the rest of the game) in `seconds`,
/// with `increment` seconds added after every move made in it.
public struct TimeControlPeriod: Hashable, Sendable, Codable {
    /// How many moves the period covers, or `nil` for the rest of the game (sudden death).
    public var moves: Int?
    /// The time the period adds to a player's clock when it begins.
    public var seconds: TimeInterval
    /// The time added after each move made in this period (Fischer increment).
    public var increment: TimeInterval

    /// Creates a period.
    public init(moves: Int? = nil, seconds: TimeInterval, increment: TimeInterval = 0) {
        self.moves = moves
        self.seconds = seconds
        self.increment = increment
    }
}

/// A time control in the syntax of the PGN `TimeControl` tag (PGN standard §9.6.1).
///
/// | text | meaning |
/// |---|---|
/// | `?` | unknown (played untimed) |
/// | `-` | no time control |
/// | `300` | sudden death: 300 s for the game |
/// | `300+2` | 300 s plus 2 s per move |
/// | `40/5400+30:1800+30` | 40 moves in 90 min, then 30 min for the rest, 30 s per move throughout |
/// | `40/7200` | 40 moves in 2 h, repeating every 40 moves |
/// | `*180` | sandclock: an hourglass of 180 s |
///
/// A last period that has a move count repeats. Numbers are seconds and may carry a
/// fraction (`0.5`).
public enum TimeControl: Hashable, Sendable, Codable {
    /// `?`: the control is not known; clocks count nothing down.
    case unknown
    /// `-`: the game is not timed.
    case unlimited
    /// One or more periods, played in order.
    case periods([TimeControlPeriod])
    /// An hourglass holding `seconds`: time running out of one side flows to the other.
    case sandclock(seconds: TimeInterval)

    /// Parses PGN `TimeControl` text. Surrounding white space is ignored.
    public init(pgn text: String) throws(TimeControlError) {
        let trimmed = Substring(text).drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace)
        let body = String(trimmed.reversed())
        switch body {
        case "": throw .empty
        case "?": self = .unknown
        case "-": self = .unlimited
        default:
            if body.hasPrefix("*") {
                guard let seconds = Self.number(body.dropFirst()), seconds > 0 else {
                    throw .invalidSandclock(body)
                }
                self = .sandclock(seconds: seconds)
                return
            }
            var periods: [TimeControlPeriod] = []
            let fields = body.split(separator: ":", omittingEmptySubsequences: false)
            for (index, field) in fields.enumerated() {
                let period = try Self.period(field)
                if period.moves == nil, index != fields.count - 1 {
                    throw .suddenDeathNotLast(String(field))
                }
                periods.append(period)
            }
            self = .periods(periods)
        }
    }

    /// The text of this control in PGN `TimeControl` syntax (`40/5400+30:1800+30`).
    public var pgn: String {
        switch self {
        case .unknown: return "?"
        case .unlimited: return "-"
        case .sandclock(let seconds): return "*" + Self.format(seconds)
        case .periods(let periods):
            return periods.map { period in
                var text = period.moves.map { "\($0)/" } ?? ""
                text += Self.format(period.seconds)
                if period.increment > 0 { text += "+" + Self.format(period.increment) }
                return text
            }.joined(separator: ":")
        }
    }

    /// Whether clocks count down under this control.
    public var isTimed: Bool {
        switch self {
        case .unknown, .unlimited: false
        case .periods, .sandclock: true
        }
    }

    /// The period a player is in after completing `periodIndex` earlier periods: the last
    /// period repeats when it has a move count. `nil` when the control has no periods.
    public func period(at periodIndex: Int) -> TimeControlPeriod? {
        guard case .periods(let periods) = self, let last = periods.last else { return nil }
        return periodIndex < periods.count ? periods[max(0, periodIndex)] : last
    }

    /// The time on each clock when the game starts.
    public var initialTime: TimeInterval {
        switch self {
        case .unknown, .unlimited: 0
        case .sandclock(let seconds): seconds
        case .periods(let periods): periods.first?.seconds ?? 0
        }
    }

    private static func period(_ field: Substring) throws(TimeControlError) -> TimeControlPeriod {
        var rest = field
        var moves: Int?
        if let slash = rest.firstIndex(of: "/") {
            let countText = rest[..<slash]
            guard countText.allSatisfy(\.isASCII), let count = Int(countText), count > 0 else {
                throw .invalidMoveCount(String(field))
            }
            moves = count
            rest = rest[rest.index(after: slash)...]
        }
        var increment: TimeInterval = 0
        if let plus = rest.firstIndex(of: "+") {
            guard let value = number(rest[rest.index(after: plus)...]) else {
                throw .invalidIncrement(String(field))
            }
            increment = value
            rest = rest[..<plus]
        }
        guard let seconds = number(rest), seconds > 0 else { throw .invalidSeconds(String(field)) }
        return TimeControlPeriod(moves: moves, seconds: seconds, increment: increment)
    }

    /// A non-negative, finite decimal number made of ASCII digits and at most one inner dot.
    private static func number(_ text: Substring) -> TimeInterval? {
        guard !text.isEmpty, text.count <= 12,
            text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            text.filter({ $0 == "." }).count <= 1, text.first != ".", text.last != ".",
            let value = Double(text), value.isFinite
        else { return nil }
        return value
    }

    private static func format(_ value: TimeInterval) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }
}

extension TimeControl: CustomStringConvertible {
    /// The PGN text.
    public var description: String { pgn }
}

/// Why a `TimeControl` text was rejected; each case carries the offending text.
public enum TimeControlError: Error, Equatable, Sendable {
    /// The text is empty.
    case empty
    /// A period's move count (before `/`) is not a positive integer.
    case invalidMoveCount(String)
    /// A period's time is not a positive number of seconds.
    case invalidSeconds(String)
    /// A period's increment (after `+`) is not a non-negative number of seconds.
    case invalidIncrement(String)
    /// A sandclock (`*seconds`) has no valid positive time.
    case invalidSandclock(String)
    /// A period without a move count is followed by another period.
    case suddenDeathNotLast(String)
}

extension TimeControlError: CustomStringConvertible {
    /// Why the text was refused, in words (without the whole text, which callers quote).
    public var reason: String {
        switch self {
        case .empty: "it is empty"
        case .invalidMoveCount: "the move count before \"/\" must be a positive number"
        case .invalidSeconds:
            "expected seconds, optionally \"moves/\" before and \"+increment\" after"
        case .invalidIncrement: "the increment after \"+\" must be a number of seconds"
        case .invalidSandclock: "a sandclock is \"*\" and a number of seconds"
        case .suddenDeathNotLast: "only the last period may be without a move count (\"40/\")"
        }
    }

    /// The reason, in words.
    public var description: String { reason }
}

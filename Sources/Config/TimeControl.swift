/// A PGN `TimeControl` value: `?`, `-`, `*180`, or periods separated by `:` such as
/// `300+2`, `5400+30`, `40/5400+30:1800+30`. Times are whole seconds.
public enum TimeControl: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// `?`: not known.
    case unknown
    /// `-`: no clock.
    case untimed
    /// `*N`: a sandclock of N seconds.
    case sandclock(seconds: Int)
    /// One or more periods, played in order; the last one repeats if it has a move count.
    case periods([TimeControlPeriod])

    /// The largest number of seconds or moves accepted in one field.
    public static let maximumValue = 10_000_000

    /// Parses the PGN text, or returns why it is not valid.
    public static func parse(_ text: String) -> Result<TimeControl, TimeControlError> {
        switch text {
        case "?": return .success(.unknown)
        case "-": return .success(.untimed)
        case "": return .failure(TimeControlError(text: text, reason: "it is empty"))
        default: break
        }
        if text.hasPrefix("*") {
            guard let seconds = number(text.dropFirst()), seconds > 0 else {
                return .failure(TimeControlError(text: text, reason: "a sandclock is \"*\" and a number of seconds"))
            }
            return .success(.sandclock(seconds: seconds))
        }
        let descriptors = text.split(separator: ":", omittingEmptySubsequences: false)
        var periods: [TimeControlPeriod] = []
        for (index, descriptor) in descriptors.enumerated() {
            switch period(descriptor) {
            case .failure(let problem):
                let context = descriptors.count > 1 ? "period \(index + 1): " : ""
                return .failure(TimeControlError(text: text, reason: context + problem.message))
            case .success(let period):
                if period.moves == nil, index != descriptors.count - 1 {
                    return .failure(
                        TimeControlError(
                            text: text, reason: "only the last period may be without a move count (\"40/\")"))
                }
                periods.append(period)
            }
        }
        return .success(.periods(periods))
    }

    /// The PGN text.
    public var description: String {
        switch self {
        case .unknown: "?"
        case .untimed: "-"
        case .sandclock(let seconds): "*\(seconds)"
        case .periods(let periods): periods.map(\.description).joined(separator: ":")
        }
    }

    private static func period(_ text: Substring) -> Result<TimeControlPeriod, ConfigProblem> {
        var rest = text
        var moves: Int?
        if let slash = rest.firstIndex(of: "/") {
            guard let count = number(rest[..<slash]), count > 0 else {
                return .failure(ConfigProblem("the move count before \"/\" must be a positive number"))
            }
            moves = count
            rest = rest[rest.index(after: slash)...]
        }
        var increment = 0
        if let plus = rest.firstIndex(of: "+") {
            guard let value = number(rest[rest.index(after: plus)...]) else {
                return .failure(ConfigProblem("the increment after \"+\" must be a number of seconds"))
            }
            increment = value
            rest = rest[..<plus]
        }
        guard let seconds = number(rest) else {
            return .failure(ConfigProblem("expected seconds, optionally \"moves/\" before and \"+increment\" after"))
        }
        guard seconds > 0 || increment > 0 else {
            return .failure(ConfigProblem("a period needs some time"))
        }
        return .success(TimeControlPeriod(moves: moves, seconds: seconds, increment: increment))
    }

    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 8, text.allSatisfy({ $0.isASCII && $0.isNumber }),
            let value = Int(text), value <= maximumValue
        else { return nil }
        return value
    }
}

/// One period of a ``TimeControl``: `moves/seconds+increment`.
public struct TimeControlPeriod: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Moves to make in this period, or `nil` for the rest of the game.
    public let moves: Int?
    /// The time for the period, in seconds.
    public let seconds: Int
    /// Seconds added after each move.
    public let increment: Int

    /// Creates a period.
    public init(moves: Int?, seconds: Int, increment: Int = 0) {
        self.moves = moves
        self.seconds = seconds
        self.increment = increment
    }

    /// The PGN text (`40/5400+30`).
    public var description: String {
        let prefix = moves.map { "\($0)/" } ?? ""
        let suffix = increment > 0 ? "+\(increment)" : ""
        return "\(prefix)\(seconds)\(suffix)"
    }
}

/// Why a text is not a PGN time control.
public struct TimeControlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text given.
    public let text: String
    /// What is wrong.
    public let reason: String

    /// Creates an error.
    public init(text: String, reason: String) {
        self.text = text
        self.reason = reason
    }

    /// `invalid time control "300+": …`.
    public var description: String {
        "invalid time control \"\(text)\": \(reason)"
    }
}

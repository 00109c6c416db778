public import Chess
public import Kernel

/// Reads the chess notations received in commands with the modules that own them (the
/// Chess module for FEN, the kernel for time controls), once: the command carries the
/// ``Position`` or ``TimeControl`` read here, so a command the parser accepts is one the
/// session can apply.
public enum NotationCheck {
    /// The longest FEN accepted (the longest legal FEN is under 100 characters).
    public static let maximumFENLength = 128
    /// The longest time control accepted.
    public static let maximumTimeControlLength = 64

    /// The position `fen` describes (``Position/init(fen:)``), or why it is refused.
    /// The contract takes 4 or 6 fields: a halfmove clock without its fullmove number
    /// (5 fields) is refused, although the Chess module would read it.
    public static func position(_ fen: String) -> Result<Position, NotationProblem> {
        guard fen.count <= maximumFENLength else {
            return .failure(NotationProblem("longer than \(maximumFENLength) characters"))
        }
        let fields = fen.split(whereSeparator: \.isWhitespace).count
        guard fields == 4 || fields == 6 else {
            return .failure(NotationProblem("FEN has \(fields) fields, expected 4 or 6"))
        }
        do {
            return .success(try Position(fen: fen))
        } catch {
            return .failure(NotationProblem(error.description))
        }
    }

    /// The time control `text` names in PGN `TimeControl` syntax (``TimeControl/init(pgn:)``),
    /// or why it is refused.
    public static func timeControl(_ text: String) -> Result<TimeControl, NotationProblem> {
        guard text.count <= maximumTimeControlLength else {
            return .failure(NotationProblem("longer than \(maximumTimeControlLength) characters"))
        }
        do {
            return .success(try TimeControl(pgn: text))
        } catch {
            return .failure(NotationProblem(error.reason))
        }
    }

    /// Whether `fen` describes a legal position the contract accepts, else why not.
    public static func fenProblem(_ fen: String) -> String? {
        if case .failure(let problem) = position(fen) { problem.reason } else { nil }
    }

    /// Whether `text` is a PGN `TimeControl` the kernel can run, else why not.
    public static func timeControlProblem(_ text: String) -> String? {
        if case .failure(let problem) = timeControl(text) { problem.reason } else { nil }
    }
}

/// Why a notation in a command is refused (the text after `bad FEN "…": `).
public struct NotationProblem: Error, Equatable, Sendable {
    /// The reason, for the error answer.
    public var reason: String

    /// Creates a problem.
    public init(_ reason: String) { self.reason = reason }
}

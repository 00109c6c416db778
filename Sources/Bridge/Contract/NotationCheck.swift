import Chess
import Kernel

/// Checks of chess notations received in commands, done by the modules that own them
/// (the Chess module for FEN, the kernel for time controls) so that a command the
/// parser accepts is one the session can apply. Each returns `nil` when the text is
/// acceptable, else the reason.
public enum NotationCheck {
    /// The longest FEN accepted (the longest legal FEN is under 100 characters).
    public static let maximumFENLength = 128
    /// The longest time control accepted.
    public static let maximumTimeControlLength = 64

    /// Whether `fen` describes a legal position (``Position/init(fen:)``), else why not.
    /// The contract takes 4 or 6 fields: a halfmove clock without its fullmove number
    /// (5 fields) is refused, although the Chess module would read it.
    public static func fenProblem(_ fen: String) -> String? {
        guard fen.count <= maximumFENLength else { return "longer than \(maximumFENLength) characters" }
        let fields = fen.split(whereSeparator: \.isWhitespace).count
        guard fields == 4 || fields == 6 else { return "FEN has \(fields) fields, expected 4 or 6" }
        do {
            _ = try Position(fen: fen)
            return nil
        } catch {
            return error.description
        }
    }

    /// Whether `text` is a PGN `TimeControl` the kernel can run (``TimeControl/init(pgn:)``),
    /// else why not.
    public static func timeControlProblem(_ text: String) -> String? {
        guard text.count <= maximumTimeControlLength else {
            return "longer than \(maximumTimeControlLength) characters"
        }
        do {
            _ = try TimeControl(pgn: text)
            return nil
        } catch {
            return error.reason
        }
    }
}

/// The two sides of a chess game.
public enum PieceColor: String, CaseIterable, Hashable, Sendable, Codable {
    case white
    case black

    /// The other side.
    @inlinable
    public var opponent: PieceColor { self == .white ? .black : .white }
}

/// The six kinds of chess piece.
public enum PieceKind: String, CaseIterable, Hashable, Sendable, Codable {
    case pawn
    case knight
    case bishop
    case rook
    case queen
    case king

    /// The lower-case letter used by FEN and UCI (`p n b r q k`).
    public var letter: Character {
        switch self {
        case .pawn: "p"
        case .knight: "n"
        case .bishop: "b"
        case .rook: "r"
        case .queen: "q"
        case .king: "k"
        }
    }

    /// The kind named by a FEN/UCI/SAN letter in either case, or `nil`.
    public init?(letter: Character) {
        switch letter.lowercased() {
        case "p": self = .pawn
        case "n": self = .knight
        case "b": self = .bishop
        case "r": self = .rook
        case "q": self = .queen
        case "k": self = .king
        default: return nil
        }
    }
}

/// A piece: a kind and a color.
public struct Piece: Hashable, Sendable, Codable {
    /// The side the piece belongs to.
    public var color: PieceColor
    /// What the piece is.
    public var kind: PieceKind

    /// Creates a piece of `color` and `kind`.
    @inlinable
    public init(_ color: PieceColor, _ kind: PieceKind) {
        self.color = color
        self.kind = kind
    }

    /// The FEN letter: upper case for White, lower case for Black.
    public var fenLetter: Character { Character(Unicode.Scalar(fenASCII)) }

    /// The FEN letter as its ASCII byte (what a FEN or a move's SAN is written with).
    public var fenASCII: UInt8 {
        let lower: UInt8 =
            switch kind {
            case .pawn: UInt8(ascii: "p")
            case .knight: UInt8(ascii: "n")
            case .bishop: UInt8(ascii: "b")
            case .rook: UInt8(ascii: "r")
            case .queen: UInt8(ascii: "q")
            case .king: UInt8(ascii: "k")
            }
        return color == .white ? lower - 0x20 : lower
    }

    /// The piece named by a FEN letter (`K` = white king, `q` = black queen), or `nil`.
    public init?(fenLetter: Character) {
        guard let kind = PieceKind(letter: fenLetter) else { return nil }
        self.init(fenLetter.isUppercase ? .white : .black, kind)
    }
}

extension Piece: CustomStringConvertible {
    /// The FEN letter.
    public var description: String { String(fenLetter) }
}

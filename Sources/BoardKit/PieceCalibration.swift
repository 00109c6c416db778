/// The tag a piece carries (a Certabo piece's 5-byte RFID id), as one number: the id's bytes
/// in wire order, most significant first. `0` is no tag (an empty square).
public typealias PieceTag = UInt64

/// What a board that recognises pieces by tag has learned: which tag is which piece.
///
/// Tags belong to physical pieces, not to kinds: two white pawns carry two tags. A board
/// learns them from the start position (``BoardCalibrationEvent``), the host keeps the
/// table across restarts and hands it to the next link's adapter.
public struct PieceCalibration: Hashable, Sendable, Codable {
    /// The piece each known tag stands for.
    public private(set) var pieces: [PieceTag: Piece]

    /// A table of `pieces`; tag `0` (no tag) is left out.
    public init(pieces: [PieceTag: Piece] = [:]) {
        self.pieces = pieces.filter { $0.key != 0 }
    }

    /// The piece `tag` stands for, `nil` when the tag was never learned.
    public subscript(tag: PieceTag) -> Piece? { pieces[tag] }

    /// How many tags are known.
    public var count: Int { pieces.count }

    /// The table as text, one `tag piece` pair a line (`0a1b2c3d4e P`), sorted by tag: the
    /// form kept in the state directory.
    public var text: String {
        pieces.sorted { $0.key < $1.key }.map { Self.text(of: $0.key) + " " + String($0.value.fenLetter) + "\n" }
            .joined()
    }

    /// Parses ``text``; `nil` when a line is not a 10-digit hex tag, a space and a FEN piece
    /// letter, or a tag is given twice.
    public init?(text: some StringProtocol) {
        var pieces: [PieceTag: Piece] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: " ")
            guard fields.count == 2, fields[0].count == 10, let tag = PieceTag(fields[0], radix: 16), tag != 0,
                fields[1].count == 1, let piece = Piece(fenLetter: fields[1].first!), pieces[tag] == nil
            else { return nil }
            pieces[tag] = piece
        }
        self.pieces = pieces
    }

    /// `tag` as the table's text writes it: 10 hex digits (`0a1b2c3d4e`).
    public static func text(of tag: PieceTag) -> String {
        let digits = String(tag, radix: 16)
        return String(repeating: "0", count: max(0, 10 - digits.count)) + digits
    }
}

/// Where a board that recognises pieces by tag stands with its calibration.
public enum BoardCalibrationEvent: Hashable, Sendable {
    /// The board knows no tags yet: the pieces are to be set up on the start position
    /// (spare queens on d3 and d6 where there are any) for it to learn them.
    case needed
    /// The board learned its pieces: keep the table for the next link.
    case learned(PieceCalibration)
    /// The learning saw the start position's squares occupied but could not settle every
    /// square's tag (`squares`: the unsettled ones, or two squares showing one tag); it
    /// goes on with the frames that follow.
    case unsettled([Square])
    /// Pieces whose tags were never learned stand on `squares`: no position is reported
    /// until they are gone (or the board is calibrated with them); empty when they are gone.
    case unknownPieces([Square])
}

import Adapters
import BoardKit

/// The ChessUp wire forms of the firmware's game: its `67` state and the `66` frame that
/// loads one.
extension FirmwareGame {
    /// The `67` state of this game.
    var state: ChessUpState {
        ChessUpState(
            pieces: pieces, sideToMove: sideToMove, castlingRights: castlingRights, enPassant: enPassant,
            halfmoveClock: UInt8(clamping: halfmoveClock), fullmoveNumber: UInt8(clamping: fullmoveNumber))
    }
}

extension FirmwareGame {
    /// Parses the body of a `66` load-position frame: `/` + placement, side, castling and
    /// en-passant fields + ` ` + halfmove byte + fullmove byte. `nil` when malformed.
    init?(loadFrameBody body: some Collection<UInt8>) {
        let bytes = Array(body)
        guard bytes.count > 3, bytes[0] == UInt8(ascii: "/"), bytes[bytes.count - 3] == UInt8(ascii: " ") else {
            return nil
        }
        let text = String(decoding: bytes[1..<(bytes.count - 3)], as: UTF8.self)
        let fields = text.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 4, let pieces = BoardSnapshot(fenPlacement: fields[0]) else { return nil }
        switch fields[1] {
        case "w": sideToMove = .white
        case "b": sideToMove = .black
        default: return nil
        }
        let castling = fields[2]
        guard castling == "-" || (!castling.isEmpty && castling.allSatisfy { "KQkq".contains($0) }) else { return nil }
        castlingRights = ["K", "Q", "k", "q"].map { castling.contains($0) }
        if fields[3] == "-" {
            enPassant = nil
        } else {
            guard let square = Square(fields[3]) else { return nil }
            enPassant = square
        }
        self.pieces = pieces
        halfmoveClock = Int(bytes[bytes.count - 2])
        fullmoveNumber = Int(bytes[bytes.count - 1])
    }
}

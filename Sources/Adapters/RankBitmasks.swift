public import BoardKit

/// Eight bytes, one a rank from rank 8 down to rank 1, one bit a square with the least
/// significant bit on file a: how Certabo, the Sentio and iChessOne address their LEDs.
public enum RankBitmasks {
    /// The 8 bytes lighting `squares`.
    public static func bytes(lighting squares: some Sequence<Square>) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 8)
        for square in squares { bytes[7 - square.rank] |= 1 << UInt8(square.file) }
        return bytes
    }

    /// The squares 8 bytes light (bytes past the eighth are ignored).
    public static func squares(lit bytes: some Collection<UInt8>) -> Set<Square> {
        var squares: Set<Square> = []
        for (row, bits) in bytes.prefix(8).enumerated() {
            for file in 0..<8 where bits & (1 << UInt8(file)) != 0 {
                squares.insert(Square(file: file, rank: 7 - row)!)
            }
        }
        return squares
    }
}

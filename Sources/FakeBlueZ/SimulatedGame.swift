import BoardKit
import Chess

/// The game the simulator believes is being played on a board: the position scripted moves
/// are validated against (the physical board may differ after manual lifts and knocks).
struct SimulatedGame: Hashable, Sendable {
    /// The tracked position.
    var position: Position

    /// A game from `fen` (full FEN, or a placement alone: White to move, castling rights only
    /// for the standard start placement).
    init(fen: String?) throws(FakeBlueZError) {
        position = try fen.map { fen throws(FakeBlueZError) in try Self.position(fen: fen) } ?? .starting
    }

    /// Parses a full FEN or a placement.
    static func position(fen: String) throws(FakeBlueZError) -> Position {
        let trimmed = Substring(fen).trimmingSpaces()
        if trimmed.isEmpty { return .starting }
        if !trimmed.contains(" ") {
            guard BoardSnapshot(fenPlacement: trimmed) != nil else { throw .invalidValue(key: "fen", value: fen) }
            if trimmed == BoardSnapshot.startingPosition.fenPlacement { return .starting }
            do {
                return try Position(fen: trimmed + " w - - 0 1")
            } catch {
                throw .invalidValue(key: "fen", value: fen)
            }
        }
        do {
            return try Position(fen: trimmed)
        } catch {
            throw .invalidValue(key: "fen", value: fen)
        }
    }

    /// The moves of `uci`, each legal after the previous ones, without changing the game.
    ///
    /// - Throws: ``FakeBlueZError/illegalMove(_:index:)`` for the first one that is not.
    func legalMoves(_ uci: [String]) throws(FakeBlueZError) -> [Move] {
        var scratch = position
        var moves: [Move] = []
        for (index, text) in uci.enumerated() {
            guard let move = scratch.legalMove(uci: text.lowercased()) else { throw .illegalMove(text, index: index) }
            scratch.apply(move)
            moves.append(move)
        }
        return moves
    }
}

/// A real game the autoplay mode replays.
public struct BuiltInGame: Hashable, Sendable {
    /// Who played, where and when.
    public var title: String
    /// The moves in SAN.
    public var san: [String]

    /// The moves in UCI, converted through the rules (a game that fails to convert is a bug).
    public var uciMoves: [String] {
        var position = Position.starting
        var result: [String] = []
        for text in san {
            guard let move = try? position.move(san: text) else { return result }
            result.append(move.uci)
            position.apply(move)
        }
        return result
    }
}

/// The real games autoplay cycles through: between them they castle on both sides, capture
/// en passant (giving mate) and promote (a knight, giving mate).
public enum BuiltInGames {
    /// The games, in the order autoplay plays them.
    public static let all: [BuiltInGame] = [
        BuiltInGame(
            title: "Morphy vs Duke Karl / Count Isouard, Paris 1858",
            san: """
                e4 e5 Nf3 d6 d4 Bg4 dxe5 Bxf3 Qxf3 dxe5 Bc4 Nf6 Qb3 Qe7 Nc3 c6 Bg5 b5 Nxb5 cxb5 \
                Bxb5+ Nbd7 O-O-O Rd8 Rxd7 Rxd7 Rd1 Qe6 Bxd7+ Nxd7 Qb8+ Nxb8 Rd8#
                """.split(separator: " ").map(String.init)),
        BuiltInGame(
            title: "Gundersen vs Faul, Melbourne 1928",
            san: """
                e4 e6 d4 d5 e5 c5 c3 cxd4 cxd4 Bb4+ Nc3 Nc6 Nf3 Nge7 Bd3 O-O Bxh7+ Kxh7 Ng5+ Kg6 \
                h4 Nxd4 Qg4 f5 h5+ Kh6 Nxe6+ g5 hxg6#
                """.split(separator: " ").map(String.init)),
        BuiltInGame(
            title: "Reinle vs Lange, Murnau 1936",
            san: "e4 e5 f4 f5 exf5 e4 Qh5+ g6 fxg6 h6 g7+ Ke7 Qe5+ Kf7 gxh8=N#".split(separator: " ").map(String.init)),
        BuiltInGame(
            title: "Réti vs Tartakower, Vienna 1910",
            san: "e4 c6 d4 d5 Nc3 dxe4 Nxe4 Nf6 Qd3 e5 dxe5 Qa5+ Bd2 Qxe5 O-O-O Nxe4 Qd8+ Kxd8 Bg5+ Kc7 Bd8#"
                .split(separator: " ").map(String.init)),
    ]
}

public import BoardKit
public import Chess
public import FoundationEssentials

/// The arbiter's last word on moves the board could not tell (issue #30): after
/// ``TrackerOutput/missedMoves(_:)``, the arbiter names the line that was played. It is
/// taken only when every move is legal in turn from the game position and the line leads to
/// what the board senses now; then its moves are committed in order, each marked
/// ``CommittedMove/resolved``, and the board is in sync again. Anything else is refused with
/// the reason, and nothing changes.
extension GameTracker {
    /// The most moves one resolution may enter.
    public static let maximumResolvedPlies = 200

    /// Commits `moves` (UCI such as `e2e4`, or SAN such as `Nf3`, each read in the position
    /// the moves before it lead to) as the line played since the game position.
    ///
    /// - Parameters:
    ///   - moves: the line, oldest first; at least one move.
    ///   - fromPly: the game's ply the arbiter saw when choosing the line; when given and the
    ///     game has moved on (or back) since, the resolution is stale and refused.
    ///   - time: now.
    /// - Returns: the committed moves (and the end of the game, the sync state) in order.
    /// - Throws: ``ResolutionRefusal`` naming the first problem; the tracker is unchanged.
    public mutating func resolve(
        _ moves: [String], fromPly: Int? = nil, at time: TimeInterval
    ) throws(ResolutionRefusal) -> [TrackerOutput] {
        let line = try checkResolution(moves, fromPly: fromPly)
        var outputs: [TrackerOutput] = []
        for move in line { commit(move, at: time, resolved: true, into: &outputs) }
        closeGap()
        reportedMismatch = 0
        hold = ReportHold()
        touched = 0
        lastPlaced = nil
        grace.cancel()
        reclassify(at: time, into: &outputs)
        return outputs
    }

    /// The legal moves `notation` names from the game position, when the line may be taken.
    func checkResolution(_ notation: [String], fromPly: Int?) throws(ResolutionRefusal) -> [Move] {
        guard !notation.isEmpty else { throw .noMoves }
        guard notation.count <= Self.maximumResolvedPlies else {
            throw .tooManyMoves(notation.count, limit: Self.maximumResolvedPlies)
        }
        if let fromPly, fromPly != game.moves.count { throw .stale(expectedPly: fromPly, ply: game.moves.count) }
        guard !isGameOver else { throw .gameOver(game.result) }
        var position = game.position
        var line: [Move] = []
        for (index, text) in notation.enumerated() {
            let trimmed = String(text.filter { $0 != " " && $0 != "\t" })
            guard let move = Self.legalMove(trimmed, in: position) else {
                throw .illegalMove(index: index + 1, move: String(trimmed.prefix(16)), fen: position.fen)
            }
            line.append(move)
            position = position.applying(move)
        }
        guard let sensed = sensedDifference(from: position) else { throw .boardUnknown }
        guard sensed == 0 else { throw .boardDiffers(squares: sensed.squares, fen: position.fen) }
        return line
    }

    /// The legal move `text` names in `position`: UCI first, then SAN.
    static func legalMove(_ text: String, in position: Position) -> Move? {
        if let move = position.legalMove(uci: text.lowercased()) { return move }
        guard let move = try? position.move(san: text), position.isLegal(move) else { return nil }
        return move
    }

    /// The squares where what the board senses now differs from `position` (an empty set:
    /// it shows it), or `nil` when the board has shown nothing since its link came up.
    /// Piece-identity boards (and boards whose state frames carry pieces) are compared piece
    /// by piece, occupancy boards square by square.
    func sensedDifference(from position: Position) -> UInt64? {
        let target = PackedBoard(position: position)
        switch inputPath {
        case .identity:
            return lastFrame.map { $0.differences(from: target) }
        case .occupancy:
            return observed.map { $0 ^ target.occupancy }
        case .reportedMoves:
            if let sensedPlacement { return sensedPlacement.differences(from: target) }
            return observed.map { $0 ^ target.occupancy }
        }
    }
}

/// Why a resolution (``GameTracker/resolve(_:fromPly:at:)``) was refused; its description
/// is the reason given to the arbiter.
public enum ResolutionRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// The line holds no move.
    case noMoves
    /// The line is longer than ``GameTracker/maximumResolvedPlies``.
    case tooManyMoves(Int, limit: Int)
    /// The game's ply is no longer the one the line was chosen at.
    case stale(expectedPly: Int, ply: Int)
    /// The game is over.
    case gameOver(GameResult)
    /// Move number `index` (from 1) of the line is not a legal move in `fen`.
    case illegalMove(index: Int, move: String, fen: String)
    /// The board has not shown its pieces since its link came up.
    case boardUnknown
    /// The line leads to `fen`, which the board does not show on `squares`.
    case boardDiffers(squares: [Square], fen: String)

    /// The reason, for the command's answer.
    public var description: String {
        switch self {
        case .noMoves:
            "no moves to resolve with"
        case .tooManyMoves(let count, let limit):
            "\(count) moves are more than one resolution takes (\(limit))"
        case .stale(let expected, let ply):
            "stale: the line was chosen at ply \(expected), the game is at ply \(ply) now"
        case .gameOver(let result):
            "the game is over (\(result.rawValue))"
        case .illegalMove(let index, let move, let fen):
            "move \(index) \"\(move)\" is not legal in \(fen)"
        case .boardUnknown:
            "the board has not shown its pieces since it connected; wait until it is ready"
        case .boardDiffers(let squares, let fen):
            "the board does not show where the line leads (\(fen)): it differs on "
                + squares.map(\.name).joined(separator: " ")
        }
    }
}

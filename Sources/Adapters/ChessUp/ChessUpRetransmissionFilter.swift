import BoardKit

/// Tells a retransmitted `A3` move frame from a real move.
///
/// The board retransmits every `A3` frame until the host's `21` arrives, and every
/// unacknowledged frame takes part in the retransmission wave, so a retransmission may come
/// after a newer move (`m1 m2 m1`). The rule:
///
/// - An `A3` frame byte-identical to one of the last ``windowSize`` (two) distinct reported
///   moves is a retransmission: acknowledged again, but no new event.
/// - A real repetition of a from → to pair cannot fall inside that window in a legal game.
///   After White plays s → t, a piece must come back to s before s → t can be played again:
///   by Black, that takes Black's move onto s and White's reply in between (two frames, so
///   the first one has left a two-frame window); by White, it takes three frames.
/// - Repetitions that the rule cannot see coming are announced by the board: an undo (`BD`)
///   or a completed position load (`B1`) empties the window, and so does a new link.
/// - A `67` state frame keeps only the moves the reported position agrees with (`from` empty,
///   `to` occupied): after a new game (the handshake's `B9` + `67`) `e2e4` counts again,
///   while a late retransmission of a move just played is still recognised.
///
/// The price: a retransmission that arrives after two or more newer moves (the host left
/// several frames unacknowledged for seconds) is reported again; the game kernel rejects it
/// as an illegal move.
struct ChessUpRetransmissionFilter: Sendable {
    /// How many distinct recent moves are remembered.
    static let windowSize = 2

    private(set) var recent: [BoardMove] = []

    /// Whether `move` repeats one of the remembered recent moves.
    func isRetransmission(_ move: BoardMove) -> Bool { recent.contains(move) }

    /// Remembers a newly reported move.
    mutating func record(_ move: BoardMove) {
        recent.append(move)
        if recent.count > Self.windowSize { recent.removeFirst(recent.count - Self.windowSize) }
    }

    /// Keeps only the moves the board's reported position agrees with.
    mutating func prune(keepingMovesConsistentWith pieces: BoardSnapshot) {
        recent.removeAll { pieces[$0.from] != nil || pieces[$0.to] == nil }
    }

    /// Forgets every move.
    mutating func clear() { recent.removeAll() }
}

import BoardKit
import Kernel

/// A board that keeps the host's position and waits for the host's verdict on each move it
/// reports (``BoardCapabilities/refereedMoves``, the Chess Peripheral Protocol): the kernel
/// referees, the board follows.
///
/// - Each report is answered at once with what the kernel did with it: the move it took
///   (the promotion piece it chose when the report named none) or a refusal.
/// - The board always holds the game's position: once it is ready, and whenever the game's
///   position changes other than by a report the kernel took (a new game, a set position,
///   a takeback, an arbiter's resolution), it is sent the position (`loadPosition`).
/// - The end of a game is said (`endGame`); the next game is sent when it starts.
///
/// Such a board speaks the game's squares: the session's orientation stays White near.
extension BoardSession {
    /// Whether this board is refereed by the host.
    var isRefereed: Bool { capabilities.contains(.refereedMoves) }

    /// Answers `reported` with what the kernel's `outputs` say of it: the move committed,
    /// or a refusal when none was.
    func judge(_ reported: BoardMove, by outputs: [SessionOutput]) {
        var taken: BoardMove?
        for case .tracker(.move(let committed)) in outputs {
            taken = BoardMove(uci: committed.uci)
            break
        }
        transport.send(.judgeMove(reported: reported, taken: taken))
        // The board plays a move it was told is taken: its position is the game's again.
        if taken != nil, boardPosition != nil { boardPosition = core.position.fen }
        logger.info("judged the board's move", [("uci", reported.uci), ("taken", taken?.uci ?? "refused")])
    }

    /// `event` as the kernel reads it: a board's word that it shows the position it was
    /// given is what its squares show, the occupancy of that position, while it is the
    /// game's (`nil` otherwise: a newer position is on its way, and its answer will come).
    func squares(of event: BoardEvent) -> BoardEvent? {
        guard case .positionConfirmed = event else { return event }
        guard let given = boardPosition, given == core.position.fen else { return nil }
        return .occupancy(core.position.snapshot.occupancy)
    }

    /// Sends the game's position to the board when the board holds another one (or none,
    /// on a new link), while the game is on.
    func keepBoardOnGame() {
        guard isRefereed, isReady, transport.state == .connected, core.game.result == .ongoing else { return }
        let fen = core.position.fen
        guard boardPosition != fen else { return }
        boardPosition = fen
        transport.send(.loadPosition(fen: fen))
        logger.info("board given the game's position", [("fen", fen)])
    }

    /// Tells the board the game is over: its round ends and it holds no position until the
    /// next game begins.
    func announceEnd(_ end: GameEnd) {
        guard isRefereed, isReady, transport.state == .connected else { return }
        transport.send(.endGame(reason: end.reason.name))
        boardPosition = nil
    }
}

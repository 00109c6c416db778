public import Adapters
public import BoardKit
public import FoundationEssentials

/// The firmware of a board speaking the Chess Peripheral Protocol (``ChessPeripheralWire``),
/// as ArduinoBleChess-based boards behave: it senses occupancy only, holds the position the
/// host began (`begin <fen>`), and compares its sensors with it.
///
/// - `feature <name>` is answered `ok` for ``Options/features``, `nok` otherwise; `variant`
///   `ok` for `standard` only. Features hold for the link they were asked on.
/// - `begin` answers `sync` or `unsync` with the placement the sensors show (a square the
///   held position has no piece on shows `?`); one or two pieces in the hand are a move
///   being made (`sync`), not a board out of step.
/// - With a host connected, a move the pieces' movement shows from the held position (``FirmwareMoveRecognizer``,
///   without rules of check: the host referees), while in sync or at `begin`, is reported
///   `move <uci>`, without its promotion piece unless
///   ``Options/namesPromotionPiece``, and nothing more is reported until the host answers:
///   `ok` or `promote <uci>` plays it in the held position, `nok` leaves the position and
///   says `unsync`. A move made while no link was up is reported after the next `begin` of
///   the position the firmware holds, or of that position and the move still waiting for its
///   verdict when the link went (the round resumes; another position is a new round).
/// - While out of sync, and with `submove_state` always, every change sends `state`; the
///   board matching the held position again sends `sync`. Out of sync, nothing is taken
///   for a move: a board being set up can look like one.
/// - `end` ends the round: no more reports until the next `begin`. `check <square>` is kept
///   (``checkSquare``), as the board's LED would show it.
///
/// The firmware speaks the game's squares whichever way round the board stands
/// (``isFlipped`` changes nothing). Anything it cannot read counts as a malformed command and
/// is answered `err`.
public struct ChessPeripheralPersonality: BoardPersonality {
    /// What the firmware supports.
    public struct Options: Hashable, Sendable {
        /// The optional features answered `ok`.
        public var features: Set<String>
        /// Whether a reported promotion names its piece (a board that knows its pieces).
        public var namesPromotionPiece: Bool

        /// Creates options (by default `submove_state` and `check`, promotions unnamed).
        public init(features: Set<String> = ["submove_state", "check"], namesPromotionPiece: Bool = false) {
            self.features = features
            self.namesPromotionPiece = namesPromotionPiece
        }
    }

    /// The advertised name.
    public let name: String
    /// What the firmware supports.
    public let options: Options
    /// Kept for the protocol; the firmware speaks the game's squares either way.
    public var isFlipped: Bool
    /// The physical board.
    public internal(set) var physical: PhysicalBoard
    /// Protocol violations counted so far.
    public internal(set) var violations = ProtocolViolations()
    /// The features the host asked for on this link and the firmware accepted.
    public internal(set) var enabledFeatures: Set<String> = []
    /// Whether the sensors matched the held position when the firmware last said.
    public internal(set) var isSynced = false
    /// The move reported and not yet judged.
    public internal(set) var awaitingVerdict: BoardMove?
    /// The square of the last `check`, until the next `begin` or move.
    public internal(set) var checkSquare: Square?
    /// The reason of the last `end`, until the next `begin`.
    public internal(set) var endReason: String?
    /// The host's verdicts so far (`ok`, `nok`, `promote <uci>`), oldest first.
    public internal(set) var verdicts: [String] = []

    /// The held position; `nil` outside a round.
    var game: FirmwareGame?
    /// Whether a host is connected (nothing is reported without one).
    var isLinkUp = false
    /// Squares lifted since the last reported move.
    var lifted: Set<Square> = []
    /// A rook move that may still turn into castling, and the occupancy it left.
    var deferredRookMove: (move: BoardMove, occupancy: OccupancyMap)?

    /// A board called `name` with `board` set up on it.
    public init(
        name: String = "CPP Board", board: BoardSnapshot = .startingPosition, isFlipped: Bool = false,
        options: Options = Options()
    ) {
        self.name = name
        self.options = options
        self.isFlipped = isFlipped
        physical = PhysicalBoard(pieces: board)
    }

    /// The Chess Peripheral Protocol.
    public var family: BoardFamily { .chessPeripheral }
    /// ``ChessPeripheralAdapter/profile``.
    public var profile: BoardProfile { ChessPeripheralAdapter.profile }
    /// The pieces standing on the board.
    public var board: BoardSnapshot { physical.pieces }
    /// The firmware acts only when told or when a piece moves.
    public var tickInterval: TimeInterval? { nil }
    /// The held position as FEN, `nil` outside a round.
    public var heldFEN: String? { game?.fen }

    /// Nothing is sent on a new link.
    public mutating func linkEstablished(at time: TimeInterval) -> [Data] {
        isLinkUp = true
        return []
    }

    /// Forgets the link's features. A report the host had not answered stays waiting: the
    /// next `begin` says whether the host took it.
    public mutating func linkLost() {
        isLinkUp = false
        enabledFeatures = []
    }

    /// Nothing happens on its own.
    public mutating func tick(at time: TimeInterval) -> [Data] { [] }

    /// Applies the action; inside a round, says what the sensors show as the protocol asks.
    public mutating func perform(_ action: PhysicalAction, at time: TimeInterval) -> [Data] {
        var placedNow: Square?
        var liftedNow: Square?
        switch physical.apply(action) {
        case .emptied(let square, _):
            liftedNow = square
            lifted.insert(square)
        case .placed(let square, _, _):
            placedNow = square
        case .none, .battery, .button:
            return []
        }
        guard game != nil, isLinkUp else { return [] }
        var output: [Data] = []
        if enabledFeatures.contains("submove_state") || !isSynced { output.append(said("state")) }
        output += evaluate(placedNow: placedNow, liftedNow: liftedNow)
        return output
    }

    /// Reads the command of one write (or several, one a line) and answers it.
    public mutating func handleWrite(_ bytes: Data, at time: TimeInterval) -> [Data] {
        var output: [Data] = []
        for message in ChessPeripheralWire.messages(in: bytes) {
            guard let message else {
                violations.malformedCommands += 1
                output.append(ChessPeripheralWire.Message("err", "malformed command").bytes)
                continue
            }
            output += execute(message)
        }
        return output
    }

    private mutating func execute(_ message: ChessPeripheralWire.Message) -> [Data] {
        switch message.command {
        case "feature":
            let accepted = options.features.contains(message.argument)
            if accepted { enabledFeatures.insert(message.argument) }
            return [ChessPeripheralWire.Message(accepted ? "ok" : "nok").bytes]
        case "variant":
            return [ChessPeripheralWire.Message(message.argument == "standard" ? "ok" : "nok").bytes]
        case "begin":
            guard let begun = FirmwareGame(fen: message.argument) else { return malformed() }
            // The host begins the position the firmware holds again, or that position and the
            // move it reported (a new link, a restarted host; the verdict may have been lost
            // with the link): the round resumes, and a move made meanwhile is reported. Any
            // other position is a new round.
            let taken = game.flatMap { held in
                awaitingVerdict.map { move in
                    var played = held
                    played.apply(move)
                    return played
                }
            }
            let resumes = [game, taken].contains { $0.map { Self.sameRound($0.fen, begun.fen) } ?? false }
            game = begun
            endReason = nil
            checkSquare = nil
            awaitingVerdict = nil
            deferredRookMove = nil
            // One or two pieces in the hand (squares emptied, none filled) are a move being
            // made, not a board out of step.
            let inHand = begun.pieces.occupancy.bits & ~physical.occupancy.bits
            isSynced = physical.occupancy.bits & ~begun.pieces.occupancy.bits == 0 && inHand.nonzeroBitCount <= 2
            lifted = Set(OccupancyMap(bits: inHand).squares)
            return [said(isSynced ? "sync" : "unsync")] + evaluate(placedNow: nil, liftedNow: nil, atBegin: resumes)
        case "ok", "promote":
            guard var move = awaitingVerdict else { return malformed() }
            if message.command == "promote" {
                guard let promoted = BoardMove(uci: message.argument), promoted.from == move.from,
                    promoted.to == move.to
                else { return malformed() }
                move = promoted
            }
            verdicts.append(message.text)
            awaitingVerdict = nil
            game?.apply(move)
            checkSquare = nil
            // Its squares were the held position and this move when it reported the move (a
            // move reported when a round resumed, from a board out of sync, too): in sync, even
            // if a hand is already at the next move.
            let wasSynced = isSynced
            isSynced = true
            let back = !wasSynced && physical.occupancy == game?.pieces.occupancy
            return (back ? [said("sync")] : []) + evaluate(placedNow: nil, liftedNow: nil)
        case "nok":
            guard awaitingVerdict != nil else { return malformed() }
            verdicts.append("nok")
            awaitingVerdict = nil
            isSynced = false
            return [said("unsync")]
        case "move":
            guard let move = BoardMove(uci: message.argument), game != nil else { return malformed() }
            game?.apply(move)
            return []
        case "end":
            endReason = message.argument
            game = nil
            awaitingVerdict = nil
            return []
        case "check":
            guard let square = Square(message.argument) else { return malformed() }
            checkSquare = square
            return []
        case "set_variant", "last_move", "time", "side", "msg", "err", "score":
            return []
        default:
            return malformed()
        }
    }

    /// What the sensors now show against the held position: a move to report, the board
    /// back in sync, or nothing yet. Moves are found from a board in sync, and when a round
    /// resumes (a move made while the link was down): a board out of sync is being put
    /// right, and a set-up half done can look like a move.
    private mutating func evaluate(placedNow: Square?, liftedNow: Square?, atBegin: Bool = false) -> [Data] {
        guard let game, awaitingVerdict == nil else { return [] }
        let occupancy = physical.occupancy
        if occupancy == game.pieces.occupancy {
            lifted = []
            deferredRookMove = nil
            guard !isSynced else { return [] }
            isSynced = true
            return [said("sync")]
        }
        guard isSynced || atBegin else { return [] }
        let recognition = FirmwareMoveRecognizer.recognise(
            game: game, gameOccupancy: game.pieces.occupancy, physical: physical.pieces,
            physicalOccupancy: occupancy, placedNow: placedNow, lifted: lifted, defaultPromotion: .queen,
            checksRules: false)
        if let deferred = deferredRookMove {
            switch FirmwareMoveRecognizer.decide(
                deferred.move, waitedAt: deferred.occupancy, game: game, occupancy: occupancy, recognition: recognition)
            {
            case .waiting:
                return []
            case .castling(let castling):
                deferredRookMove = nil
                return report(castling, keeping: nil)
            case .rookMove(let rookMove):
                deferredRookMove = nil
                // The action that ended the wait belongs to the next move.
                return report(rookMove, keeping: liftedNow)
            }
        }
        switch recognition {
        case .none:
            return []
        case .move(let move):
            return report(move, keeping: nil)
        case .possibleCastlingRookMove(let move):
            deferredRookMove = (move, occupancy)
            return []
        }
    }

    /// Reports `move` and waits for the verdict; `keeping` is a lift that belongs to the next
    /// move.
    private mutating func report(_ move: BoardMove, keeping liftedNow: Square?) -> [Data] {
        awaitingVerdict = move
        lifted = liftedNow.map { [$0] } ?? []
        var told = move
        if !options.namesPromotionPiece { told.promotion = nil }
        return [ChessPeripheralWire.Message("move", told.uci).bytes]
    }

    /// `command` with the placement the sensors show.
    private func said(_ command: String) -> Data {
        let placement = ChessPeripheralWire.placement(physical.occupancy, knowing: game?.pieces ?? BoardSnapshot())
        return ChessPeripheralWire.Message(command, placement).bytes
    }

    /// Whether two FENs name the same position to move (placement, side, castling rights).
    static func sameRound(_ held: String, _ begun: String) -> Bool {
        held.split(separator: " ").prefix(3) == begun.split(separator: " ").prefix(3)
    }

    private mutating func malformed() -> [Data] {
        violations.malformedCommands += 1
        return [ChessPeripheralWire.Message("err", "unsupported command").bytes]
    }
}

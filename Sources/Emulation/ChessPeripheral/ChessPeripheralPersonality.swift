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
///
/// A firmware of the 2024 dialect (``Options/dialect`` ``ChessPeripheralAdapter/Dialect/acknowledged``,
/// as ArduinoBleChess 0.2 and OPENCHESSBOARD) is the same board speaking the older words:
/// the host's `fen` takes the place of `begin` and is answered `ok` (in sync) or `nok` and
/// `fen <placement>`; every placement it sends is `fen <placement>`; it answers every host
/// command `ok` or `nok` (`nok` to the `begin`, `end` and `check` it does not know, and to
/// anything it cannot read), acknowledges a `promote` with `ok`, and takes the host's `ok`
/// or `nok` to its own `fen` without a word.
public struct ChessPeripheralPersonality: BoardPersonality {
    /// What the firmware supports.
    public struct Options: Hashable, Sendable {
        /// The optional features answered `ok`.
        public var features: Set<String>
        /// Whether a reported promotion names its piece (a board that knows its pieces).
        public var namesPromotionPiece: Bool
        /// The dialect it speaks.
        public var dialect: ChessPeripheralAdapter.Dialect

        /// Creates options (by default today's dialect, `submove_state` and `check`,
        /// promotions unnamed).
        public init(
            features: Set<String> = ["submove_state", "check"], namesPromotionPiece: Bool = false,
            dialect: ChessPeripheralAdapter.Dialect = .current
        ) {
            self.features = features
            self.namesPromotionPiece = namesPromotionPiece
            self.dialect = dialect
        }

        /// A board of the 2024 dialect as OPENCHESSBOARD's firmware is: `msg` and
        /// `last_move` its only features.
        public static let openChessBoard = Options(features: ["msg", "last_move"], dialect: .acknowledged)
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

    /// Whether the firmware speaks the 2024 dialect.
    var isAcknowledged: Bool { options.dialect == .acknowledged }

    private mutating func execute(_ message: ChessPeripheralWire.Message) -> [Data] {
        // Both dialects answer these alike.
        switch message.command {
        case "feature":
            let accepted = options.features.contains(message.argument)
            if accepted { enabledFeatures.insert(message.argument) }
            return [ChessPeripheralWire.Message(accepted ? "ok" : "nok").bytes]
        case "variant":
            return [ChessPeripheralWire.Message(message.argument == "standard" ? "ok" : "nok").bytes]
        default:
            break
        }
        if isAcknowledged { return executeAcknowledged(message) }
        switch message.command {
        case "begin":
            return begin(message.argument) ?? malformed()
        case "ok", "promote":
            return verdict(message) ?? malformed()
        case "nok":
            return refusal() ?? malformed()
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

    /// A command of the 2024 dialect (but `feature` and `variant`), each answered `ok` or
    /// `nok` but the host's own answers.
    private mutating func executeAcknowledged(_ message: ChessPeripheralWire.Message) -> [Data] {
        let ok = ChessPeripheralWire.Message("ok").bytes
        let nok = ChessPeripheralWire.Message("nok").bytes
        switch message.command {
        case "fen":
            return begin(message.argument) ?? [nok]
        case "ok", "promote":
            // The host's `ok` to a `fen` the firmware sent is no verdict: taken silently.
            guard awaitingVerdict != nil else { return message.command == "ok" ? [] : [nok] }
            let answer = verdict(message) ?? [nok]
            return message.command == "promote" ? [ok] + answer : answer
        case "nok":
            return refusal() ?? []
        case "move":
            guard let move = BoardMove(uci: message.argument), game != nil else { return [nok] }
            game?.apply(move)
            return [ok]
        case "last_move", "msg":
            return [enabledFeatures.contains(message.command) ? ok : nok]
        default:
            // ArduinoBleChess 0.2's answer to a command it does not know (today's `begin`,
            // `end`, `check`): not a host's fault, the way the host finds the dialect.
            return [nok]
        }
    }

    /// The host begins a round on `fen` (`begin`; the 2024 dialect's `fen`); `nil` when it
    /// names no position.
    private mutating func begin(_ fen: String) -> [Data]? {
        guard let begun = FirmwareGame(fen: fen) else { return nil }
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
        let answer: [Data]
        if !isAcknowledged {
            answer = [said(isSynced ? "sync" : "unsync")]
        } else if isSynced {
            answer = [ChessPeripheralWire.Message("ok").bytes]
        } else {
            answer = [ChessPeripheralWire.Message("nok").bytes, said("unsync")]
        }
        return answer + evaluate(placedNow: nil, liftedNow: nil, atBegin: resumes)
    }

    /// The host's `ok` or `promote <uci>` to the move waiting for it; `nil` when none waits
    /// or the promotion is another move.
    private mutating func verdict(_ message: ChessPeripheralWire.Message) -> [Data]? {
        guard var move = awaitingVerdict else { return nil }
        if message.command == "promote" {
            guard let promoted = BoardMove(uci: message.argument), promoted.from == move.from,
                promoted.to == move.to
            else { return nil }
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
    }

    /// The host's `nok` to the move waiting for it: the position stays, the board is out of
    /// step; `nil` when no move waits.
    private mutating func refusal() -> [Data]? {
        guard awaitingVerdict != nil else { return nil }
        verdicts.append("nok")
        awaitingVerdict = nil
        isSynced = false
        return [said("unsync")]
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

    /// `command` with the placement the sensors show (the 2024 dialect says every placement
    /// as `fen`).
    private func said(_ command: String) -> Data {
        let placement = ChessPeripheralWire.placement(physical.occupancy, knowing: game?.pieces ?? BoardSnapshot())
        return ChessPeripheralWire.Message(isAcknowledged ? "fen" : command, placement).bytes
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

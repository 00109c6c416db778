public import Adapters
public import BoardKit
public import FoundationEssentials

/// The firmware of an emulated ChessUp (gen-1 or ChessUp 2).
///
/// It senses occupancy, keeps its own game, and — inside a phoneOTB session opened by the
/// host's `B9 05 …` — reports every completed move as an `A3` frame (castling as one king
/// move, a promotion followed by a `97` pick). Every `A3` and `97` stays outstanding until
/// the host acknowledges it (`21`, `23`; the oldest outstanding frame of that kind is
/// acknowledged); ``tick(at:)`` retransmits every outstanding frame once its retransmission
/// interval has passed — the growing wave the real board sends — and counts each
/// retransmission in ``ProtocolViolations/missingAcks``. After ``Options/floodLimit``
/// retransmissions without any ack it sets ``wantsToDropLink``, as the real board drops the
/// link. Frames of moves made while no link is up are sent when the next link comes.
///
/// Lifting a piece sends a touch frame `B8 square type`, putting one down `BB` (when
/// ``Options/sendsTouchEvents``). A flipped board rotates every square on the wire.
public struct ChessUpPersonality: BoardPersonality {
    /// The two hardware generations; they speak the same protocol and differ in the model
    /// string of the `B2` board-info frame.
    public enum Generation: String, Hashable, Sendable, CaseIterable {
        /// The first ChessUp.
        case gen1
        /// ChessUp 2.
        case chessUp2

        /// The model string in the `B2` frame.
        public var model: String { self == .gen1 ? "ChessUp" : "ChessUp 2" }
    }

    /// Behaviour knobs of the emulated firmware.
    public struct Options: Hashable, Sendable {
        /// The hardware generation.
        public var generation: Generation
        /// Seconds before an unacknowledged frame is sent again.
        public var retransmitInterval: TimeInterval
        /// Retransmissions without any ack after which the firmware gives the link up.
        public var floodLimit: Int
        /// Whether lifts and placements send `B8` / `BB` touch frames.
        public var sendsTouchEvents: Bool
        /// The promotion piece picked when the pawn itself is put on the last rank.
        public var defaultPromotion: PieceKind
        /// Seconds a rook move that may be the start of castling waits for the king.
        public var castlingGrace: TimeInterval

        /// Creates options.
        public init(
            generation: Generation = .chessUp2, retransmitInterval: TimeInterval = 0.3, floodLimit: Int = 40,
            sendsTouchEvents: Bool = true, defaultPromotion: PieceKind = .queen, castlingGrace: TimeInterval = 1.0
        ) {
            self.generation = generation
            self.retransmitInterval = retransmitInterval
            self.floodLimit = floodLimit
            self.sendsTouchEvents = sendsTouchEvents
            self.defaultPromotion = defaultPromotion
            self.castlingGrace = castlingGrace
        }
    }

    /// A frame waiting for its ack.
    struct Outstanding: Hashable, Sendable {
        var bytes: Data
        var ack: UInt8
        var lastSent: TimeInterval?
    }

    /// The advertised name.
    public let name: String
    /// The firmware options.
    public let options: Options
    /// ChessUp.
    public var family: BoardFamily { .chessUp }
    /// ``ChessUpAdapter/profile``.
    public var profile: BoardProfile { ChessUpAdapter.profile }
    /// What is physically on the board (pieces in a hand are not).
    public private(set) var board: BoardSnapshot
    /// The occupancy of ``board``, kept up to date (the sensors' view).
    private(set) var occupancy: OccupancyMap
    /// Protocol violations counted so far.
    public internal(set) var violations = ProtocolViolations()
    /// Whether the board was set up with Black on the near side (every wire square rotates).
    public var isFlipped: Bool
    /// Ticks drive retransmissions and the castling grace.
    public var tickInterval: TimeInterval? { 0.1 }

    /// Whether a phoneOTB session is open (moves are reported).
    public internal(set) var isSessionOpen = false
    /// How often the host opened a session (`B9` with mode 5).
    public internal(set) var sessionOpenCount = 0
    /// Whether a link is up.
    public private(set) var isLinkUp = false
    /// Whether the firmware would drop the link now because its frames are never acknowledged.
    public private(set) var wantsToDropLink = false
    /// The last move the host showed with `99` (in ``Square`` order, not wire order).
    public internal(set) var shownMove: BoardMove?
    /// Whether the `FD FD` occupancy stream is on (host `50`; per link).
    public internal(set) var streamsOccupancy = false
    /// The battery level in percent (not on the wire: the simulator serves it as the GATT
    /// Battery Service, `180F` / `2A19`).
    public private(set) var batteryPercent = 100
    /// Whether the board is charging (reported as `33 00|01` when it changes).
    public private(set) var isCharging = false
    /// The board's own game, as its `67` frame reports it (in ``Square`` order).
    public var gameState: ChessUpState { game.state }
    /// How many `A3` / `97` frames wait for their ack.
    public var unacknowledgedFrameCount: Int { outstanding.count }

    var game = FirmwareGame.standard {
        didSet { gameOccupancy = game.pieces.occupancy }
    }
    /// The games before each move of this game, oldest first, for an undo on the board (at
    /// most ``undoLimit``).
    var undoHistory: [FirmwareGame] = []
    /// The most moves the board's undo goes back.
    static let undoLimit = 64
    private var gameOccupancy = FirmwareGame.standard.pieces.occupancy
    var outstanding: [Outstanding] = []
    private var retransmissionsSinceAck = 0
    private var lifted: Set<Square> = []
    private var deferredRookMove: (move: BoardMove, occupancy: OccupancyMap, since: TimeInterval)?

    /// Creates the firmware of a board named `name` with `board` on it. The board's game is
    /// the standard starting position until the host opens a session or loads a position.
    public init(
        name: String = "ChessUp", board: BoardSnapshot = .startingPosition, isFlipped: Bool = false,
        options: Options = Options()
    ) {
        self.name = name
        self.board = board
        occupancy = board.occupancy
        self.isFlipped = isFlipped
        self.options = options
    }

    /// The link is up: board info, then every frame still waiting for its ack.
    public mutating func linkEstablished(at time: TimeInterval) -> [Data] {
        isLinkUp = true
        wantsToDropLink = false
        retransmissionsSinceAck = 0
        var frames = [ChessUpWire.boardInfoFrame(model: options.generation.model)]
        for index in outstanding.indices {
            frames.append(outstanding[index].bytes)
            outstanding[index].lastSent = time
        }
        return frames
    }

    /// The link is gone: the occupancy stream stops; the session and unacknowledged frames stay.
    public mutating func linkLost() {
        isLinkUp = false
        streamsOccupancy = false
        for index in outstanding.indices { outstanding[index].lastSent = nil }
    }

    /// Retransmits overdue frames and ends a castling grace that ran out.
    public mutating func tick(at time: TimeInterval) -> [Data] {
        var frames: [Data] = []
        if let deferred = deferredRookMove, time - deferred.since >= options.castlingGrace,
            occupancy == deferred.occupancy
        {
            deferredRookMove = nil
            frames += commit(deferred.move, at: time)
        }
        guard isLinkUp else { return frames }
        for index in outstanding.indices {
            guard let sent = outstanding[index].lastSent, time - sent >= options.retransmitInterval else { continue }
            frames.append(outstanding[index].bytes)
            outstanding[index].lastSent = time
            violations.missingAcks += 1
            retransmissionsSinceAck += 1
        }
        if retransmissionsSinceAck >= options.floodLimit { wantsToDropLink = true }
        return frames
    }

    /// A person acts on the board.
    public mutating func perform(_ action: PhysicalAction, at time: TimeInterval) -> [Data] {
        var frames: [Data] = []
        let occupancyBefore = occupancy
        var placedNow: Square?
        var liftedNow: Square?
        switch action {
        case .lift(let square), .knockOver(let square):
            guard let piece = board[square] else { return [] }
            board[square] = nil
            occupancy.remove(square)
            lifted.insert(square)
            liftedNow = square
            if options.sendsTouchEvents {
                frames.append(
                    Data([ChessUpWire.touchOpcode, wire(square), ChessUpWire.kindCode(piece.kind)]))
            }
        case .place(let piece, let square):
            board[square] = piece
            occupancy.insert(square)
            placedNow = square
            if options.sendsTouchEvents { frames.append(Data([ChessUpWire.releaseOpcode])) }
        case .setBattery(let percent, let charging):
            let changed = charging != isCharging
            batteryPercent = min(100, max(0, percent))
            isCharging = charging
            return changed && isLinkUp ? [Data([ChessUpWire.chargingOpcode, charging ? 1 : 0])] : []
        case .pressButton(let name):
            // The board's undo: its own game goes back a move and it says so (`BD`); the pieces
            // stay until the players put them back. Only inside a session, like move reports.
            guard name == BoardButton.undo.name, isSessionOpen, let previous = undoHistory.popLast() else { return [] }
            game = previous
            resetMoveTracking()
            return isLinkUp ? [Data([ChessUpWire.undoOpcode])] : []
        }
        if streamsOccupancy, occupancy != occupancyBefore { frames.append(occupancyFrame()) }
        frames += recogniseMove(at: time, placedNow: placedNow, liftedNow: liftedNow)
        return isLinkUp ? frames : []
    }

    /// The `FD FD` frame of the physical occupancy, in wire orientation.
    func occupancyFrame() -> Data {
        ChessUpWire.occupancyFrame(isFlipped ? occupancy.rotated : occupancy)
    }

    /// The wire index of `square`.
    func wire(_ square: Square) -> UInt8 {
        UInt8((isFlipped ? square.rotated : square).rawValue)
    }

    /// The square a wire index names, or `nil` past 63.
    func square(wire index: UInt8) -> Square? {
        guard let square = Square(rawValue: Int(index)) else { return nil }
        return isFlipped ? square.rotated : square
    }

    /// Whether the host acknowledged the oldest outstanding frame that `ack` answers.
    mutating func acknowledge(_ ack: UInt8) {
        guard let index = outstanding.firstIndex(where: { $0.ack == ack }) else { return }
        outstanding.remove(at: index)
        retransmissionsSinceAck = 0
    }

    /// Starts a new game (session open, reset): the standard position, no pending move.
    mutating func startNewGame() {
        game = .standard
        undoHistory = []
        resetMoveTracking()
    }

    /// Forgets the lifts and placements of the move in progress.
    mutating func resetMoveTracking() {
        lifted = []
        deferredRookMove = nil
    }

    private mutating func recogniseMove(at time: TimeInterval, placedNow: Square?, liftedNow: Square?) -> [Data] {
        var recognition = recognise(placedNow: placedNow)
        if let deferred = deferredRookMove {
            switch FirmwareMoveRecognizer.decide(
                deferred.move, waitedAt: deferred.occupancy, game: game, occupancy: occupancy, recognition: recognition)
            {
            case .waiting:
                return []
            case .castling(let castling):
                deferredRookMove = nil
                return commit(castling, at: time)
            case .rookMove(let rookMove):
                deferredRookMove = nil
                var frames = commit(rookMove, at: time)
                // The action that ended the wait belongs to the next move.
                if let liftedNow { lifted.insert(liftedNow) }
                recognition = recognise(placedNow: placedNow)
                if case .move(let move) = recognition { frames += commit(move, at: time) }
                return frames
            }
        }
        switch recognition {
        case .none:
            return []
        case .move(let move):
            return commit(move, at: time)
        case .possibleCastlingRookMove(let move):
            deferredRookMove = (move, occupancy, time)
            return []
        }
    }

    private func recognise(placedNow: Square?) -> FirmwareMoveRecognizer.Recognition {
        FirmwareMoveRecognizer.recognise(
            game: game, gameOccupancy: gameOccupancy, physical: board, physicalOccupancy: occupancy,
            placedNow: placedNow, lifted: lifted,
            defaultPromotion: options.defaultPromotion)
    }

    /// Plays `move` in the board's game and, inside a session, queues (and, with a link,
    /// sends) its `A3` frame and the `97` pick of a promotion.
    private mutating func commit(_ move: BoardMove, at time: TimeInterval) -> [Data] {
        undoHistory.append(game)
        if undoHistory.count > Self.undoLimit { undoHistory.removeFirst() }
        game.apply(move)
        lifted = []
        guard isSessionOpen else { return [] }
        let from = isFlipped ? move.from.rotated : move.from
        let to = isFlipped ? move.to.rotated : move.to
        var frames = [ChessUpWire.moveFrame(from: from, to: to)]
        var acks = [ChessUpWire.moveAck]
        if let kind = move.promotion, let code = ChessUpWire.promotionCode(kind) {
            frames.append(Data([ChessUpWire.promotionOpcode, code]))
            acks.append(ChessUpWire.promotionAck)
        }
        for (frame, ack) in zip(frames, acks) {
            outstanding.append(Outstanding(bytes: frame, ack: ack, lastSent: isLinkUp ? time : nil))
        }
        return frames
    }
}

import BoardKit
import Chess
public import Emulation

/// The control API: what tests and `boardsim ctl` do to the simulated world. Boards are named
/// by id, address, device path or (unique) advertised name.
extension FakeBlueZ {
    /// Every adapter.
    public var adapterStatuses: [AdapterStatus] {
        adapters.map { adapter in
            AdapterStatus(
                name: adapter.name, address: adapter.address, path: adapter.path, powered: adapter.isPowered,
                discovering: adapter.isDiscovering, sessions: adapter.sessions.count, devices: adapter.devices.count)
        }
    }

    /// Every board, in the order they were added.
    public var boardStatuses: [BoardStatus] { boards.map(\.status) }

    /// One board's status.
    public func status(of board: String) throws(FakeBlueZError) -> BoardStatus {
        try self.board(board).status
    }

    /// Adds a board (it starts advertising; with `known` its device object appears at once).
    @discardableResult
    public func addBoard(_ configuration: BoardConfiguration) throws(FakeBlueZError) -> BoardStatus {
        try insertBoard(configuration).status
    }

    /// Removes a board: an open link drops (reason Remote) and its device object goes.
    public func removeBoard(_ board: String) throws(FakeBlueZError) {
        deleteBoard(try self.board(board))
    }

    /// Plays UCI moves by hand at `secondsPerMove`, validated against the tracked position;
    /// returns when the last move stands on the board.
    public func play(_ moves: [String], on board: String, secondsPerMove: Double = 0) async throws(FakeBlueZError) {
        guard secondsPerMove >= 0 && secondsPerMove <= 3600 else {
            throw .invalidValue(key: "pace", value: "\(secondsPerMove)")
        }
        let target = try self.board(board)
        log("board \(target.id): play \(moves.joined(separator: " "))")
        try await target.play(moves, secondsPerMove: secondsPerMove)
    }

    /// A person acts on the board (lift, place, knock over, battery, button).
    ///
    /// - Returns: when the last notification this action caused was sent, in nanoseconds of
    ///   `CLOCK_BOOTTIME` (the clock of Swift's `ContinuousClock` on Linux, shared by every
    ///   process of the machine), or 0 when it caused none (a benchmark's exact emit time).
    @discardableResult
    public func perform(_ action: PhysicalAction, on board: String) throws(FakeBlueZError) -> UInt64 {
        let simulated = try self.board(board)
        let sent = simulated.notificationsSent
        simulated.perform(action)
        return simulated.notificationsSent > sent ? simulated.lastNotificationTime : 0
    }

    /// Sets the board up as `fen` (full FEN or placement; the starting position when `nil`
    /// or empty), by hand, and tracks that position.
    public func setUp(board: String, fen: String?) throws(FakeBlueZError) {
        let position = try SimulatedGame.position(fen: fen ?? "")
        try self.board(board).setUp(position)
    }

    /// The board drops its link as it would when switched off (`remote`) or out of range
    /// (`timeout`); a pending connect fails with "br-connection-canceled".
    public func dropLink(board: String, reason: DisconnectReason = .remote) throws(FakeBlueZError) {
        let target = try self.board(board)
        log("board \(target.id): drop link (\(reason.rawValue))")
        if target.isSerial { try target.dropSerialLink() }
        target.device?.dropLink(reason: reason)
    }

    /// The board's GATT services changed (firmware update): its objects are removed and
    /// announced again, now if it is connected, else at its next connection.
    public func changeServices(board: String) throws(FakeBlueZError) {
        let target = try self.board(board)
        log("board \(target.id): services changed")
        target.device?.changeServices()
    }

    /// Makes the next `count` connects to the board end as `outcome`.
    public func failNextConnects(board: String, count: Int, outcome: ConnectOutcome) throws(FakeBlueZError) {
        guard (0...1000).contains(count) else { throw .invalidValue(key: "count", value: "\(count)") }
        let target = try self.board(board)
        target.pendingOutcomes = Array(repeating: outcome, count: count)
    }

    /// Powers an adapter off (discovery ends, links drop) or on.
    public func setPowered(adapter: String, _ powered: Bool) throws(FakeBlueZError) {
        guard let target = self.adapter(named: adapter) else { throw .noSuchAdapter(adapter) }
        target.setPowered(powered)
    }

    /// Sets the battery level (0…100) and charging state.
    public func setBattery(board: String, percent: Int, charging: Bool) throws(FakeBlueZError) {
        guard (0...100).contains(percent) else { throw .invalidValue(key: "battery", value: "\(percent)") }
        try self.board(board).perform(.setBattery(percent: percent, charging: charging))
    }

    /// Loses the board's next `count` notifications (0…1000; 0 cancels): the physical board
    /// changes, the host hears nothing — a sensor that missed a piece, a firmware glitch.
    /// Counted in ``ViolationReport/droppedNotifications``.
    public func loseNotifications(board: String, count: Int) throws(FakeBlueZError) {
        guard (0...1000).contains(count) else { throw .invalidValue(key: "count", value: "\(count)") }
        try self.board(board).notificationsToLose = count
    }

    /// Presses a button, named as the family names it.
    public func pressButton(board: String, name: String) throws(FakeBlueZError) {
        try self.board(board).perform(.pressButton(name))
    }

    /// Sets the board's typical RSSI (reports move with it, signalled per BlueZ's threshold).
    public func setRSSI(board: String, _ rssi: Int) throws(FakeBlueZError) {
        guard (-127...20).contains(rssi) else { throw .invalidValue(key: "rssi", value: "\(rssi)") }
        try self.board(board).rssi = rssi
    }

    /// Switches the board on or off: off, it stops advertising, its link drops (reason
    /// Timeout) and connects time out.
    public func setPresent(board: String, _ present: Bool) throws(FakeBlueZError) {
        let target = try self.board(board)
        target.isPresent = present
        if target.isSerial {
            try target.setSerialPresent(present)
        } else if present {
            target.device?.boardAppeared()
        } else {
            target.device?.dropLink(reason: .timeout)
        }
        log("board \(target.id): switched \(present ? "on" : "off")")
    }

    /// Starts (seconds per move > 0) or stops (`nil` or 0) replaying the built-in games.
    public func setAutoplay(board: String, secondsPerMove: Double?) throws(FakeBlueZError) {
        let target = try self.board(board)
        if let pace = secondsPerMove, pace > 0 {
            guard pace <= 3600 else { throw .invalidValue(key: "autoplay", value: "\(pace)") }
            guard target.scriptTask == nil || target.autoplayPace != nil else { throw .busy(target.id) }
            target.startAutoplay(secondsPerMove: pace)
        } else {
            target.stopAutoplay()
        }
    }

    /// The writes the board received, oldest first.
    public func writes(board: String) throws(FakeBlueZError) -> [WriteRecord] {
        try self.board(board).writes
    }

    /// The LE connect attempts that ended after the one numbered `mark` (0: every one kept),
    /// oldest first, with the radio time each took (`RadioTimes`).
    public func radioTimes(since mark: UInt64) -> [RadioTime] { radioTimes.since(mark) }

    /// Empties the board's write log.
    public func clearWrites(board: String) throws(FakeBlueZError) {
        try self.board(board).writes.removeAll()
    }

    /// The board's violation and notification counters.
    public func violations(board: String) throws(FakeBlueZError) -> ViolationReport {
        try self.board(board).violationReport
    }

    /// The FEN placement of what physically stands on the board.
    public func placement(board: String) throws(FakeBlueZError) -> String {
        try self.board(board).personality.board.fenPlacement
    }

    /// The full FEN of the position the simulator tracks for the board.
    public func trackedPosition(board: String) throws(FakeBlueZError) -> String {
        try self.board(board).game.position.fen
    }

    /// Parses a square name for the control interface.
    static func square(_ text: String) throws(FakeBlueZError) -> Square {
        guard let square = Square(text.lowercased()) else { throw .invalidSquare(text) }
        return square
    }

    /// Parses a FEN piece letter.
    static func piece(_ text: String) throws(FakeBlueZError) -> Piece {
        guard text.count == 1, let letter = text.first, let piece = Piece(fenLetter: letter) else {
            throw .invalidPiece(text)
        }
        return piece
    }
}

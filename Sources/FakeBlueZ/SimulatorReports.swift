/// What the simulator reports about a board (`ListBoards`, `boardsim ctl list`).
public struct BoardStatus: Hashable, Sendable, Codable {
    /// The id used by the control interface.
    public var id: String
    /// The advertised name.
    public var name: String
    /// The family (`chessnut`, `chessup`, `squareoff`, `pegasus`, `millennium`).
    public var family: String
    /// The Bluetooth address.
    public var address: String
    /// The adapter that sees it (`hci0`).
    public var adapter: String
    /// Its device object path (exported or not).
    public var path: String
    /// A `pty` board: the stable name of its line (the symbolic link to its pseudo-terminal);
    /// `nil` for the others.
    public var link: String?
    /// Whether the device object exists (seen in a scan, or known).
    public var exported: Bool
    /// Whether a link is up.
    public var connected: Bool
    /// Whether a `Disconnect` is waiting out bluetoothd's disconnect timer (the link is
    /// still up meanwhile).
    public var disconnecting: Bool
    /// Whether it is switched on and in range.
    public var present: Bool
    /// Its configured RSSI.
    public var rssi: Int
    /// Its ATT MTU.
    public var mtu: Int
    /// Battery level in percent.
    public var battery: Int
    /// Whether it is charging.
    public var charging: Bool
    /// The FEN placement of what physically stands on it.
    public var placement: String
    /// Whether a script or autoplay is running.
    public var playing: Bool
    /// Autoplay seconds per move (0: off).
    public var autoplay: Double
    /// How many writes the log holds.
    public var writes: Int
}

/// What the simulator reports about an adapter (`ListAdapters`).
public struct AdapterStatus: Hashable, Sendable, Codable {
    /// `hci0`.
    public var name: String
    /// Its address.
    public var address: String
    /// `/org/bluez/hci0`.
    public var path: String
    /// Whether it is powered.
    public var powered: Bool
    /// Whether any discovery session exists.
    public var discovering: Bool
    /// How many discovery sessions exist.
    public var sessions: Int
    /// How many device objects it has.
    public var devices: Int
}

/// One write a board received.
public struct WriteRecord: Hashable, Sendable, Codable {
    /// Seconds since the simulator started (monotonic).
    public var time: Double
    /// The characteristic UUID written.
    public var characteristic: String
    /// `request`, `command` or `reliable`.
    public var type: String
    /// The bytes.
    public var bytes: [UInt8]

    /// A record.
    public init(time: Double, characteristic: String, type: String, bytes: [UInt8]) {
        self.time = time
        self.characteristic = characteristic
        self.type = type
        self.bytes = bytes
    }
}

/// A board's protocol-violation counters (from its firmware) and the simulator's own
/// notification counters.
public struct ViolationReport: Hashable, Sendable, Codable {
    /// Writes closer together than the firmware's floor.
    public var writesTooClose: Int
    /// Frames whose ack never came before the board retransmitted.
    public var missingAcks: Int
    /// Writes the firmware could not parse.
    public var malformedCommands: Int
    /// Commands before the board was unlocked or a session was open.
    public var commandsBeforeUnlock: Int
    /// The sum of the four firmware counters.
    public var total: Int
    /// Notifications longer than MTU − 3 (truncated or refused).
    public var oversizeNotifications: Int
    /// Notifications dropped: no link, no notify session, lost on purpose
    /// (``FakeBlueZ/loseNotifications(board:count:)``) or no room in the client's socket.
    public var droppedNotifications: Int
    /// Of ``droppedNotifications``, those an `AcquireNotify` socket had no room for (the
    /// client read too slowly; bluetoothd drops them the same way).
    public var socketFullNotifications: Int
    /// Notifications sent as `PropertiesChanged(Value)`.
    public var notificationsSent: Int
}

public import BoardKit
public import Kernel

/// One entry of `boards`: a physical board the bridge connects to and publishes.
public struct ConfiguredBoard: Sendable, Equatable {
    /// The id used in topics (`<base>/<id>/…`): letters, digits, `-`, `_`; unique.
    public var id: String
    /// A readable name (default: the id).
    public var name: String
    /// How to find the board: ``BoardMatch/address(_:)`` or ``BoardMatch/namePattern(_:)``;
    /// ``BoardMatch/any`` only for a board on a serial line, which ``serial`` names.
    public var match: BoardMatch
    /// The serial device of a board on a USB or serial line (`/dev/serial/by-id/…`,
    /// `/dev/ttyUSB0`): a DGT e-Board; `nil` for a Bluetooth board.
    public var serial: String?
    /// Which protocol the board speaks.
    public var family: BoardFamily
    /// The BlueZ adapter to use; `nil` lets the bridge choose among `bluetooth.adapters`.
    public var adapter: String?
    /// The model shown in Home Assistant and `bridge/info` (`Chessnut Air`); `nil` shows the
    /// family's name.
    public var model: String?
    /// The Home Assistant area suggested for the board's device (`Hall A`).
    public var area: String?
    /// Which side is near (default auto).
    public var orientation: OrientationSetting
    /// The clock setting for games on this board; `nil` means none configured.
    public var timeControl: TimeControl?
    /// PGN tags for games on this board, keyed by PGN tag name (`Event`, `WhiteElo`).
    public var tags: [String: String]
    /// Accept raw byte commands on the `set` topic (default false).
    public var allowRawCommands: Bool
    /// A DGT Pegasus developer key (six bytes as 12 lower-case hex digits); `nil` uses
    /// the adapter's default key.
    public var developerKey: Secret?
    /// The reconnect schedule (the global `reconnect`, with this board's overrides).
    public var reconnect: BoardReconnectPolicy

    /// Creates a board entry.
    public init(
        id: String, name: String? = nil, match: BoardMatch, family: BoardFamily, adapter: String? = nil,
        orientation: OrientationSetting = .auto, timeControl: TimeControl? = nil, tags: [String: String] = [:],
        allowRawCommands: Bool = false, developerKey: Secret? = nil,
        reconnect: BoardReconnectPolicy = BoardReconnectPolicy(), model: String? = nil, area: String? = nil,
        serial: String? = nil
    ) {
        self.id = id
        self.name = name ?? id
        self.match = match
        self.family = family
        self.adapter = adapter
        self.orientation = orientation
        self.timeControl = timeControl
        self.tags = tags
        self.allowRawCommands = allowRawCommands
        self.developerKey = developerKey
        self.reconnect = reconnect
        self.model = model
        self.area = area
        self.serial = serial
    }

    /// The developer key's six bytes, or `nil` when none is configured.
    public func developerKeyBytes() -> [UInt8]? {
        guard let hex = developerKey?.reveal() else { return nil }
        return Self.keyBytes(hex)
    }

    /// Six bytes from 12 hex digits, optionally separated by spaces, `:` or `-`.
    static func keyBytes(_ text: String) -> [UInt8]? {
        guard let bytes = HexBytes.parse(text, ignoring: " :-"), bytes.count == 6 else { return nil }
        return bytes
    }
}

public import BoardKit

/// A configured board, as the bridge info and Home Assistant discovery describe it.
public struct BoardDescriptor: Equatable, Sendable {
    /// The board id (a topic level; see `Topics.validateBoardID`).
    public var id: String
    /// The display name (Home Assistant device name); defaults to the id.
    public var name: String
    /// The board family.
    public var family: BoardFamily
    /// The model, when the configuration names it (`Chessnut Air`); else the family's
    /// display name is used.
    public var model: String?
    /// The Bluetooth address, when configured.
    public var address: String?
    /// A Home Assistant area to suggest for the device (`Hall A`).
    public var suggestedArea: String?
    /// What the board can do, when known: Home Assistant gets no battery sensor for a
    /// board that does not report its battery, and no LED button for one without square
    /// LEDs. `nil` announces everything.
    public var capabilities: BoardCapabilities?
    /// The serial number the board reported (a DGT e-Board's), once known.
    public var serialNumber: String?
    /// The firmware version the board reported (a DGT e-Board's `major.minor`), once known.
    public var firmwareVersion: String?
    /// Whether the board is on a serial line (`serial:`, a USB cable): no radio, so Home
    /// Assistant gets no signal strength and no Bluetooth adapter for it.
    public var isWired = false

    /// Creates a descriptor.
    public init(
        id: String, name: String? = nil, family: BoardFamily, model: String? = nil, address: String? = nil,
        suggestedArea: String? = nil, capabilities: BoardCapabilities? = nil
    ) {
        self.id = id
        self.name = name ?? id
        self.family = family
        self.model = model
        self.address = address
        self.suggestedArea = suggestedArea
        self.capabilities = capabilities
    }

    /// The model name shown: `model` or the family's display name.
    public var modelName: String { model ?? family.displayName }
}

/// This bridge host, as its info and Home Assistant discovery describe it.
public struct BridgeDescriptor: Equatable, Sendable {
    /// The topics (base topic and node name).
    public var topics: Topics
    /// The software version, e.g. `0.1.0`.
    public var version: String
    /// The display name; defaults to `BoardBridge <node>`.
    public var name: String
    /// A URL where users find help (Home Assistant origin `support_url`).
    public var supportURL: String?
    /// The hall view's address (`configuration_url` of the Home Assistant devices), when
    /// one is configured (``HallConfiguration/viewURL``).
    public var hallURL: String?

    /// The software name used in origin blocks and device manufacturer fields.
    public static let softwareName = "BoardBridge"

    /// Creates a descriptor.
    public init(topics: Topics, version: String, name: String? = nil, supportURL: String? = nil) {
        self.topics = topics
        self.version = version
        self.name = name ?? "\(Self.softwareName) \(topics.node)"
        self.supportURL = supportURL
    }
}

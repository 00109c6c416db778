public import BoardKit

/// The whole configuration of a bridge, as read from `config.yaml`.
///
/// Every field has a default (see the shipped, commented `config.yaml`); `boards` is
/// empty by default. Its `description` is the redacted JSON (no secrets).
public struct BridgeConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// The broker connection.
    public var mqtt: BrokerConfiguration
    /// The first topic level of everything published (default `boardbridge`).
    public var baseTopic: String
    /// This bridge host's name in `<base>/bridge/<node>/…`; `nil` means "use the host name".
    public var node: String?
    /// Bluetooth adapters and scanning.
    public var bluetooth: BluetoothConfiguration
    /// The default board reconnect schedule (5 attempts, waits 2, 4, 8 s).
    public var reconnect: BoardReconnectPolicy
    /// Home Assistant discovery.
    public var homeAssistant: HomeAssistantConfiguration
    /// Where games are persisted (default `/var/lib/boardbridge`).
    public var stateDirectory: String
    /// Log level and format.
    public var logging: LoggingConfiguration
    /// Game kernel settings.
    public var game: GameConfiguration
    /// The health report and stall detection.
    public var health = HealthConfiguration()
    /// The boards to bridge.
    public var boards: [ConfiguredBoard]
    /// The hall view (`boardbridge hall`); not used by `run`.
    public var hall = HallConfiguration()

    /// The defaults, or the given values.
    public init(
        mqtt: BrokerConfiguration = BrokerConfiguration(), baseTopic: String = "boardbridge", node: String? = nil,
        bluetooth: BluetoothConfiguration = BluetoothConfiguration(),
        reconnect: BoardReconnectPolicy = BoardReconnectPolicy(),
        homeAssistant: HomeAssistantConfiguration = HomeAssistantConfiguration(),
        stateDirectory: String = "/var/lib/boardbridge", logging: LoggingConfiguration = LoggingConfiguration(),
        game: GameConfiguration = GameConfiguration(), boards: [ConfiguredBoard] = []
    ) {
        self.mqtt = mqtt
        self.baseTopic = baseTopic
        self.node = node
        self.bluetooth = bluetooth
        self.reconnect = reconnect
        self.homeAssistant = homeAssistant
        self.stateDirectory = stateDirectory
        self.logging = logging
        self.game = game
        self.boards = boards
    }

    /// The board with `id`, if configured.
    public func board(id: String) -> ConfiguredBoard? {
        boards.first { $0.id == id }
    }

    /// The redacted JSON text (``redactedDescription``).
    public var description: String { redactedDescription }
}

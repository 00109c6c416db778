import BoardKit
public import FoundationEssentials

/// Everything a ``FakeBlueZ`` starts with: adapters, boards and how BlueZ-like to behave.
///
/// Read from JSON (``init(json:)``, `boardsim --config FILE`); every key is optional:
///
/// ```json
/// {
///   "adapters": [{ "name": "hci0", "address": "00:1A:7D:DA:71:10" }],
///   "boards": [{ "family": "chessnut", "name": "Chessnut Air", "address": "AA:BB:CC:00:00:01" }],
///   "behavior": { "bluezVersion": "5.83", "disconnectDelay": 0.1 }
/// }
/// ```
public struct FakeBlueZConfiguration: Hashable, Sendable, Codable {
    /// The adapters; when empty, `hci0` is created.
    public var adapters: [AdapterConfiguration]
    /// The boards.
    public var boards: [BoardConfiguration]
    /// Timings and the emulated BlueZ version.
    public var behavior: BehaviorConfiguration

    /// A configuration with the given parts.
    public init(
        adapters: [AdapterConfiguration] = [], boards: [BoardConfiguration] = [],
        behavior: BehaviorConfiguration = BehaviorConfiguration()
    ) {
        self.adapters = adapters
        self.boards = boards
        self.behavior = behavior
    }

    /// Decodes a JSON configuration.
    ///
    /// - Throws: ``FakeBlueZError/invalidConfiguration(_:)`` naming what is wrong.
    public init(json: Data) throws(FakeBlueZError) {
        do {
            self = try JSONDecoder().decode(FakeBlueZConfiguration.self, from: json)
        } catch let error as FakeBlueZError {
            throw error
        } catch {
            throw .invalidConfiguration(Self.describe(error))
        }
    }

    /// Decodes, with every key optional.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        adapters = try container.decodeIfPresent([AdapterConfiguration].self, forKey: .adapters) ?? []
        boards = try container.decodeIfPresent([BoardConfiguration].self, forKey: .boards) ?? []
        behavior = try container.decodeIfPresent(BehaviorConfiguration.self, forKey: .behavior) ?? .init()
    }

    /// The adapters to create: the configured ones, or `hci0` alone.
    var effectiveAdapters: [AdapterConfiguration] {
        adapters.isEmpty ? [AdapterConfiguration(name: "hci0")] : adapters
    }

    private static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "top level" : keys.joined(separator: ".")
        }
        switch decoding {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(path(context)): missing key '\(key.stringValue)'"
        @unknown default:
            return "\(decoding)"
        }
    }
}

/// One emulated Bluetooth controller (`/org/bluez/hciN`).
public struct AdapterConfiguration: Hashable, Sendable, Codable {
    /// The name and last path element, `hci0`.
    public var name: String
    /// The controller's address; derived from the name when absent.
    public var address: String?
    /// The adapter's `Name` (the host name in BlueZ); `boardsim` when absent.
    public var alias: String?
    /// Whether it starts powered.
    public var powered: Bool

    /// An adapter called `name`.
    public init(name: String, address: String? = nil, alias: String? = nil, powered: Bool = true) {
        self.name = name
        self.address = address
        self.alias = alias
        self.powered = powered
    }

    /// Decodes, with everything but `name` optional.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        address = try container.decodeIfPresent(String.self, forKey: .address)
        alias = try container.decodeIfPresent(String.self, forKey: .alias)
        powered = try container.decodeIfPresent(Bool.self, forKey: .powered) ?? true
    }

    /// Parses `hci1` or `name=hci1,address=…,alias=…,powered=false` (`boardsim --adapter`).
    public init(specification: String) throws(FakeBlueZError) {
        guard specification.contains("=") else {
            self.init(name: specification)
            try validate()
            return
        }
        var name: String?
        var result = AdapterConfiguration(name: "")
        for (key, value) in try SpecificationParser.pairs(specification) {
            switch key {
            case "name": name = value
            case "address": result.address = value
            case "alias": result.alias = value
            case "powered": result.powered = try SpecificationParser.bool(value, key: key)
            default: throw .invalidConfiguration("unknown adapter key '\(key)'")
            }
        }
        guard let name else { throw .invalidConfiguration("adapter specification without name: \(specification)") }
        result.name = name
        try result.validate()
        self = result
    }

    /// Checks the name (`hci` and a number) and the address.
    func validate() throws(FakeBlueZError) {
        guard name.hasPrefix("hci"), let number = Int(name.dropFirst(3)), number >= 0 else {
            throw .invalidValue(key: "adapter", value: name)
        }
        if let address, BluetoothAddress.normalized(address) == nil {
            throw .invalidValue(key: "address", value: address)
        }
        if let alias, alias.contains("\0") { throw .invalidValue(key: "alias", value: alias) }
    }

    /// The address to use: the configured one, else `00:1A:7D:DA:71:1N`.
    var effectiveAddress: String {
        if let address, let normalized = BluetoothAddress.normalized(address) { return normalized }
        let number = Int(name.dropFirst(3)) ?? 0
        let low = HexBytes.string([UInt8(truncatingIfNeeded: 0x10 + number)]).uppercased()
        return "00:1A:7D:DA:71:" + low
    }
}

/// How BlueZ-like, and how fast, the fake behaves.
public struct BehaviorConfiguration: Hashable, Sendable, Codable {
    /// What to do with a notification longer than MTU − 3.
    public enum OversizePolicy: String, Hashable, Sendable, Codable {
        /// Cut it to MTU − 3 bytes (what a peripheral's stack does).
        case truncate
        /// Drop it.
        case refuse
    }

    /// The emulated BlueZ version (`5.83`): picks the disconnect signal order (5.83+ sends
    /// `Disconnected`), the connect-abort text (≤ 5.61: "Software caused connection abort"),
    /// whether claimed services are exported (5.80+), and which properties exist.
    public var bluezVersion: String
    /// Keep GATT objects across disconnects (`[GATT] Cache = always`); `false` removes them.
    public var gattCache: Bool
    /// Seconds from `Connect` to the link (or the failure).
    public var connectDelay: Double
    /// Seconds before a connect to an absent board fails: the kernel's LE connect timeout
    /// (`HCI_LE_CONN_TIMEOUT`, 20 s). A board that comes into range meanwhile connects.
    public var connectTimeout: Double
    /// Seconds from the link to `ServicesResolved=true`.
    public var serviceDiscoveryDelay: Double
    /// Up to this many seconds more for each connect, drawn at random (radio conditions,
    /// the board's advertising interval): 0 by default.
    public var connectJitter: Double
    /// Up to this many seconds more for each service discovery, drawn at random: 0 by default.
    public var serviceDiscoveryJitter: Double
    /// Seconds `Disconnect` waits before dropping the link (bluetoothd's `DISCONNECT_TIMER`, 2).
    public var disconnectDelay: Double
    /// Seconds before a request write is answered (the ATT write response).
    public var writeResponseDelay: Double
    /// Seconds between advertisement reports of each board while discovering.
    public var advertisingInterval: Double
    /// Seconds a temporary device survives without advertisements (BlueZ: 30).
    public var temporaryTimeout: Double
    /// Largest random deviation of reported RSSI from a board's configured value, in dBm.
    public var rssiJitter: Int
    /// Notifications longer than MTU − 3.
    public var oversizeNotifications: OversizePolicy
    /// Seed of the random choices (RSSI jitter, human move styles in autoplay).
    public var seed: UInt64

    /// Defaults: bluetoothd's and the kernel's own waits where they shape what a client sees
    /// (2 s disconnect hold, 20 s LE connect timeout); short radio delays elsewhere.
    public init(
        bluezVersion: String = "5.83", gattCache: Bool = true, connectDelay: Double = 0.05,
        connectTimeout: Double = 20, serviceDiscoveryDelay: Double = 0.05, connectJitter: Double = 0,
        serviceDiscoveryJitter: Double = 0, disconnectDelay: Double = 2,
        writeResponseDelay: Double = 0.02, advertisingInterval: Double = 0.25, temporaryTimeout: Double = 30,
        rssiJitter: Int = 2, oversizeNotifications: OversizePolicy = .truncate, seed: UInt64 = 1
    ) {
        self.bluezVersion = bluezVersion
        self.gattCache = gattCache
        self.connectDelay = connectDelay
        self.connectTimeout = connectTimeout
        self.serviceDiscoveryDelay = serviceDiscoveryDelay
        self.connectJitter = connectJitter
        self.serviceDiscoveryJitter = serviceDiscoveryJitter
        self.disconnectDelay = disconnectDelay
        self.writeResponseDelay = writeResponseDelay
        self.advertisingInterval = advertisingInterval
        self.temporaryTimeout = temporaryTimeout
        self.rssiJitter = rssiJitter
        self.oversizeNotifications = oversizeNotifications
        self.seed = seed
    }

    /// Decodes, with every key optional.
    public init(from decoder: any Decoder) throws {
        let defaults = BehaviorConfiguration()
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func value<T: Decodable>(_ key: CodingKeys, _ fallback: T) throws -> T {
            try container.decodeIfPresent(T.self, forKey: key) ?? fallback
        }
        bluezVersion = try value(.bluezVersion, defaults.bluezVersion)
        gattCache = try value(.gattCache, defaults.gattCache)
        connectDelay = try value(.connectDelay, defaults.connectDelay)
        connectTimeout = try value(.connectTimeout, defaults.connectTimeout)
        serviceDiscoveryDelay = try value(.serviceDiscoveryDelay, defaults.serviceDiscoveryDelay)
        connectJitter = try value(.connectJitter, defaults.connectJitter)
        serviceDiscoveryJitter = try value(.serviceDiscoveryJitter, defaults.serviceDiscoveryJitter)
        disconnectDelay = try value(.disconnectDelay, defaults.disconnectDelay)
        writeResponseDelay = try value(.writeResponseDelay, defaults.writeResponseDelay)
        advertisingInterval = try value(.advertisingInterval, defaults.advertisingInterval)
        temporaryTimeout = try value(.temporaryTimeout, defaults.temporaryTimeout)
        rssiJitter = try value(.rssiJitter, defaults.rssiJitter)
        oversizeNotifications = try value(.oversizeNotifications, defaults.oversizeNotifications)
        seed = try value(.seed, defaults.seed)
    }

    /// The parsed ``bluezVersion`` (5.83 when unreadable).
    var version: BlueZVersion { BlueZVersion(bluezVersion) ?? BlueZVersion(major: 5, minor: 83) }

    /// Checks the version and that no delay is negative or absurd.
    func validate() throws(FakeBlueZError) {
        guard BlueZVersion(bluezVersion) != nil else { throw .invalidValue(key: "bluezVersion", value: bluezVersion) }
        let delays: [(String, Double)] = [
            ("connectDelay", connectDelay), ("connectTimeout", connectTimeout),
            ("serviceDiscoveryDelay", serviceDiscoveryDelay), ("disconnectDelay", disconnectDelay),
            ("connectJitter", connectJitter), ("serviceDiscoveryJitter", serviceDiscoveryJitter),
            ("writeResponseDelay", writeResponseDelay), ("temporaryTimeout", temporaryTimeout),
        ]
        for (key, delay) in delays where !(delay >= 0 && delay <= 3600) {
            throw .invalidValue(key: key, value: "\(delay)")
        }
        guard advertisingInterval >= 0.01 && advertisingInterval <= 60 else {
            throw .invalidValue(key: "advertisingInterval", value: "\(advertisingInterval)")
        }
        guard (0...40).contains(rssiJitter) else { throw .invalidValue(key: "rssiJitter", value: "\(rssiJitter)") }
    }
}

/// A BlueZ release, to switch version-dependent behaviour.
struct BlueZVersion: Hashable, Sendable, Comparable {
    var major: Int
    var minor: Int

    init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    init?(_ text: String) {
        let parts = text.split(separator: ".")
        guard parts.count == 2, let major = Int(parts[0]), let minor = Int(parts[1]), major == 5, minor >= 50 else {
            return nil
        }
        self.init(major: major, minor: minor)
    }

    static func < (lhs: BlueZVersion, rhs: BlueZVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    func atLeast(_ minor: Int) -> Bool { self >= BlueZVersion(major: 5, minor: minor) }
}

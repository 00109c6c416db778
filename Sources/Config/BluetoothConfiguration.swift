/// Which advertisements the scanner passes on.
public struct ScanFilter: Sendable, Equatable, Hashable {
    /// The weakest signal accepted, in dBm (-127…20); `nil` accepts any.
    public var rssi: Int?
    /// Service UUIDs to scan for, lower-case (16-bit `fff0`, 32-bit, or 128-bit form);
    /// empty means the services of the configured board families.
    public var serviceUUIDs: [String]

    /// Creates a filter (default: no RSSI floor, the families' services).
    public init(rssi: Int? = nil, serviceUUIDs: [String] = []) {
        self.rssi = rssi
        self.serviceUUIDs = serviceUUIDs
    }

    /// `text` as a lower-case 16-, 32- or 128-bit UUID, or `nil`.
    public static func normalizedUUID(_ text: String) -> String? {
        let lower = text.lowercased()
        let isHex: (Substring) -> Bool = { $0.allSatisfy { $0.isASCII && $0.isHexDigit } }
        if (lower.count == 4 || lower.count == 8) && isHex(Substring(lower)) { return lower }
        let groups = lower.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12], groups.allSatisfy(isHex) else { return nil }
        return lower
    }
}

/// How the bridge asks BlueZ for a board's notifications (`bluetooth.notify_method`).
public enum NotifyMethod: String, Sendable, Equatable, Hashable, CaseIterable {
    /// `AcquireNotify` where BlueZ offers it (a socket per characteristic, no D-Bus message
    /// per notification), else `StartNotify`. The default.
    case acquireNotify = "acquire_notify"
    /// `StartNotify` only: every notification is a D-Bus signal.
    case startNotify = "start_notify"
}

/// The `bluetooth` section: adapters, scanning and connecting.
public struct BluetoothConfiguration: Sendable, Equatable, Hashable {
    /// BlueZ adapters to use (`hci0`, …); the first is the default for boards without `adapter`.
    public var adapters: [String]
    /// Which advertisements to consider.
    public var scanFilter: ScanFilter
    /// Seconds to wait for a connection and service discovery (default 20).
    public var connectTimeout: Double
    /// Bridge boards that are not listed under `boards` too (default false).
    public var discovery: Bool
    /// How notifications are received (default ``NotifyMethod/acquireNotify``).
    public var notifyMethod: NotifyMethod

    /// The defaults, or the given values.
    public init(
        adapters: [String] = ["hci0"], scanFilter: ScanFilter = ScanFilter(), connectTimeout: Double = 20,
        discovery: Bool = false, notifyMethod: NotifyMethod = .acquireNotify
    ) {
        self.notifyMethod = notifyMethod
        self.adapters = adapters
        self.scanFilter = scanFilter
        self.connectTimeout = connectTimeout
        self.discovery = discovery
    }

    /// Whether `name` looks like a BlueZ adapter name (`hci` and a number).
    public static func isAdapterName(_ name: String) -> Bool {
        name.hasPrefix("hci") && name.count > 3 && name.count <= 6
            && name.dropFirst(3).allSatisfy { $0.isASCII && $0.isNumber }
    }
}

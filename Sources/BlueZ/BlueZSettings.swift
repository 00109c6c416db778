import BoardKit
public import FoundationEssentials

/// Settings of the ``BlueZManager``.
public struct BlueZManagerSettings: Hashable, Sendable {
    /// The discovery filter's `RSSI` (dBm), or `nil` for none. Note that setting it makes
    /// BlueZ report every RSSI change (reference/bluez-dbus.md §3.2).
    public var discoveryRSSI: Int16?
    /// The discovery filter's `UUIDs`: only devices advertising one of these services are
    /// reported; empty for any device (boards often advertise none).
    public var discoveryUUIDs: [String]
    /// The adapters (`hci0`) the manager uses, or `nil` for every adapter BlueZ has; the
    /// others are ignored (``BlueZObjectModel/onlyAdapters``).
    public var adapters: [String]?
    /// Waits between attempts to reach the bus (or to load BlueZ's objects) after a failure;
    /// the last entry repeats forever.
    public var busRetryDelays: [TimeInterval]
    /// The timeout of ordinary BlueZ calls (discovery, StartNotify, GetManagedObjects).
    public var callTimeout: TimeInterval

    /// Settings with sensible defaults.
    public init(
        discoveryRSSI: Int16? = nil, discoveryUUIDs: [String] = [], adapters: [String]? = nil,
        busRetryDelays: [TimeInterval] = [0.5, 1, 2, 5, 10, 30], callTimeout: TimeInterval = 10
    ) {
        self.discoveryRSSI = discoveryRSSI
        self.discoveryUUIDs = discoveryUUIDs
        self.adapters = adapters
        self.busRetryDelays = busRetryDelays
        self.callTimeout = callTimeout
    }

    /// The wait before retry `attempt` (1-indexed).
    func busRetryDelay(attempt: Int) -> TimeInterval {
        guard let last = busRetryDelays.last else { return 1 }
        let index = max(0, attempt - 1)
        return max(0.05, index < busRetryDelays.count ? busRetryDelays[index] : last)
    }
}

/// How a transport receives a characteristic's notifications.
public enum BlueZNotifyMethod: String, Hashable, Sendable, CaseIterable {
    /// `AcquireNotify` where BlueZ offers it (the characteristic exports `NotifyAcquired`):
    /// every notification is a datagram on a socket of the bridge's own, read directly —
    /// no `dbus-daemon` hop and no D-Bus message to decode. Falls back to `StartNotify`
    /// when BlueZ refuses it.
    case acquireNotify = "acquire_notify"
    /// `StartNotify`: every notification is a `PropertiesChanged` signal through the bus.
    case startNotify = "start_notify"
}

/// Timing settings of one ``BlueZBoardTransport``.
public struct BlueZTransportSettings: Hashable, Sendable {
    /// The D-Bus timeout of `Device1.Connect` (BlueZ itself gives up after ~20–30 s).
    public var connectTimeout: TimeInterval
    /// How long to wait for `ServicesResolved` (and the GATT objects) after the link is up.
    public var servicesTimeout: TimeInterval
    /// Back-offs between retries of a `Connect` that failed with `InProgress` or an abort
    /// (`le-connection-abort-by-local`…), within one attempt; their count is the number of
    /// retries.
    public var transientRetryDelays: [TimeInterval]
    /// How long a reconnect attempt scans for a board whose BlueZ object is gone.
    public var rediscoveryTimeout: TimeInterval
    /// The wait before scanning again after a failed first connect (``BlueZBoardTransport/start()``).
    public var initialRetryDelay: TimeInterval
    /// The D-Bus timeout of one `WriteValue`.
    public var writeTimeout: TimeInterval
    /// The longest single write; `nil` derives it from the negotiated MTU (`MTU` − 3, or 20
    /// when BlueZ does not export the MTU). Longer payloads are written in chunks, the adapter's write floor
    /// between each.
    public var maximumWriteLength: Int?
    /// How notifications are received.
    public var notifyMethod: BlueZNotifyMethod
    /// How long after its last handshake step a board may take to answer it (the adapter's
    /// ``BoardKit/BoardEvent/ready`` or ``BoardKit/BoardEvent/handshakeFailed(reason:)``)
    /// before the link reports `.handshakeFailed` ("no answer to the handshake after N s").
    public var handshakeTimeout: TimeInterval

    /// Settings with production defaults.
    public init(
        connectTimeout: TimeInterval = 35, servicesTimeout: TimeInterval = 20,
        transientRetryDelays: [TimeInterval] = [0.5, 1, 2], rediscoveryTimeout: TimeInterval = 20,
        initialRetryDelay: TimeInterval = 5, writeTimeout: TimeInterval = 10, maximumWriteLength: Int? = nil,
        notifyMethod: BlueZNotifyMethod = .acquireNotify, handshakeTimeout: TimeInterval = 10
    ) {
        self.notifyMethod = notifyMethod
        self.handshakeTimeout = handshakeTimeout
        self.connectTimeout = connectTimeout
        self.servicesTimeout = servicesTimeout
        self.transientRetryDelays = transientRetryDelays
        self.rediscoveryTimeout = rediscoveryTimeout
        self.initialRetryDelay = initialRetryDelay
        self.writeTimeout = writeTimeout
        self.maximumWriteLength = maximumWriteLength
    }
}

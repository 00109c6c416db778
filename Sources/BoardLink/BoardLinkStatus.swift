public import BoardKit
public import FoundationEssentials

/// What a board link reports (the bridge publishes it on `<base>/<board>/connection`): the
/// state plus the reconnect details. One type for every transport (Bluetooth LE, RFCOMM,
/// serial).
public struct BoardLinkStatus: Equatable, Sendable {
    /// The transport state.
    public var state: BoardTransportState
    /// The current reconnect attempt (1-indexed) while reconnecting, else `nil`.
    public var reconnectAttempt: Int?
    /// The policy's `maxAttempts`.
    public var maxAttempts: Int
    /// While waiting before a reconnect attempt: how long that wait is (seconds).
    public var nextDelay: TimeInterval?
    /// The last error, readable.
    public var lastError: String?
    /// The connected (or last connected) board's name.
    public var deviceName: String?
    /// The connected (or last connected) board's address.
    public var deviceAddress: String?
    /// The adapter of the current (or last) link (`hci0`).
    public var adapter: String?

    /// A status record.
    public init(
        state: BoardTransportState, reconnectAttempt: Int? = nil, maxAttempts: Int, nextDelay: TimeInterval? = nil,
        lastError: String? = nil, deviceName: String? = nil, deviceAddress: String? = nil, adapter: String? = nil
    ) {
        self.state = state
        self.reconnectAttempt = reconnectAttempt
        self.maxAttempts = maxAttempts
        self.nextDelay = nextDelay
        self.lastError = lastError
        self.deviceName = deviceName
        self.deviceAddress = deviceAddress
        self.adapter = adapter
    }
}

public import DBus

/// The errors BlueZ answers with, named and worded exactly as `src/error.c` and the
/// handlers in `adapter.c`, `device.c` and `gatt-client.c` send them
/// (reference/bluez-dbus.md §2–§4).
public enum BlueZErrors {
    /// The `org.bluez.Error.` prefix of every BlueZ error name.
    public static let prefix = "org.bluez.Error."

    /// `NotReady` "Resource Not Ready": the adapter is powered off.
    public static let notReady = DBusError(name: prefix + "NotReady", message: "Resource Not Ready")
    /// `InProgress` "Operation already in progress" (`btd_error_busy`): a second discovery
    /// start, or a second LE connect on one adapter.
    public static let busy = DBusError(name: prefix + "InProgress", message: "Operation already in progress")
    /// `InProgress` "In Progress" (`btd_error_in_progress`): a Connect already pending on
    /// the device, a request write already pending on the characteristic.
    public static let inProgress = DBusError(name: prefix + "InProgress", message: "In Progress")
    /// `InvalidArguments` "Invalid arguments in method call".
    public static let invalidArguments = DBusError(
        name: prefix + "InvalidArguments", message: "Invalid arguments in method call")
    /// `InvalidArguments` "Invalid offset" (ATT error: offset past the value).
    public static let invalidOffset = DBusError(name: prefix + "InvalidArguments", message: "Invalid offset")
    /// `DoesNotExist` "Does Not Exist".
    public static let doesNotExist = DBusError(name: prefix + "DoesNotExist", message: "Does Not Exist")
    /// `AlreadyExists` "Already Exists".
    public static let alreadyExists = DBusError(name: prefix + "AlreadyExists", message: "Already Exists")
    /// `Failed` "No discovery started": StopDiscovery from a sender without a session.
    public static let noDiscoveryStarted = DBusError(name: prefix + "Failed", message: "No discovery started")
    /// `Failed` "Not connected": GATT I/O without a link.
    public static let notConnectedIO = DBusError(name: prefix + "Failed", message: "Not connected")
    /// `NotConnected` "Not Connected": StartNotify while the device is disconnecting.
    public static let notConnected = DBusError(name: prefix + "NotConnected", message: "Not Connected")
    /// `Failed` "No notify session started": StopNotify without a session.
    public static let noNotifySession = DBusError(name: prefix + "Failed", message: "No notify session started")
    /// `NotSupported` "Operation is not supported".
    public static let notSupported = DBusError(name: prefix + "NotSupported", message: "Operation is not supported")
    /// `NotPermitted` "Read not permitted" (ATT read not permitted).
    public static let readNotPermitted = DBusError(name: prefix + "NotPermitted", message: "Read not permitted")
    /// `NotPermitted` "Write not permitted" (ATT write not permitted; the CCCD).
    public static let writeNotPermitted = DBusError(name: prefix + "NotPermitted", message: "Write not permitted")
    /// `NotAuthorized` "Operation Not Authorized": writes to a claimed (read-only) service.
    public static let notAuthorized = DBusError(name: prefix + "NotAuthorized", message: "Operation Not Authorized")
    /// `NotPermitted` "Notify acquired": StartNotify or a second AcquireNotify while the
    /// notify socket is acquired.
    public static let notifyAcquired = DBusError(name: prefix + "NotPermitted", message: "Notify acquired")
    /// `NotPermitted` "Write acquired": WriteValue or a second AcquireWrite while the write
    /// socket is acquired.
    public static let writeAcquired = DBusError(name: prefix + "NotPermitted", message: "Write acquired")
    /// `Failed` "Failed to initiate write": a write command longer than MTU − 3.
    public static let writeNotInitiated = DBusError(name: prefix + "Failed", message: "Failed to initiate write")
    /// `Failed` "le-connection-abort-by-local": every asynchronous LE connect failure (≥ 5.62).
    public static let abortByLocal = DBusError(name: prefix + "Failed", message: "le-connection-abort-by-local")
    /// `Failed` "Software caused connection abort": the same failure up to BlueZ 5.61.
    public static let softwareAbort = DBusError(name: prefix + "Failed", message: "Software caused connection abort")
    /// `Failed` "br-connection-canceled": the link dropped, or Disconnect was called, while
    /// Connect was pending.
    public static let connectionCanceled = DBusError(name: prefix + "Failed", message: "br-connection-canceled")
    /// `Failed` "Operation already in progress" (strerror of EALREADY): an ATT socket is
    /// already connecting.
    public static let alreadyConnecting = DBusError(name: prefix + "Failed", message: "Operation already in progress")
    /// `AuthenticationCanceled` "Authentication Canceled": a pending `Pair` was canceled
    /// (CancelPairing, Disconnect, link loss).
    public static let authenticationCanceled = DBusError(
        name: prefix + "AuthenticationCanceled", message: "Authentication Canceled")
    /// `Failed` "Input/output error": the socket could not be created (also `Connect`
    /// while the adapter is off: bluetoothd's LE path turns that into `-EIO`).
    public static let ioError = DBusError(name: prefix + "Failed", message: "Input/output error")
}

/// Why a link went down: the `Disconnected(s reason, s message)` signal's arguments
/// (BlueZ 5.83+).
public enum DisconnectReason: String, Hashable, Sendable, CaseIterable {
    /// The host (a client's `Disconnect`, `RemoveDevice`, power off) ended the link.
    case local
    /// The board ended the link (switched off, or its firmware dropped it).
    case remote
    /// The link supervision timeout expired (the board went out of range).
    case timeout

    /// The reason name, e.g. `org.bluez.Reason.Remote`.
    public var reasonName: String {
        switch self {
        case .local: "org.bluez.Reason.Local"
        case .remote: "org.bluez.Reason.Remote"
        case .timeout: "org.bluez.Reason.Timeout"
        }
    }

    /// The human-readable message BlueZ sends with it.
    public var message: String {
        switch self {
        case .local: "Connection terminated by local host"
        case .remote: "Connection terminated by remote user"
        case .timeout: "Connection timeout"
        }
    }
}

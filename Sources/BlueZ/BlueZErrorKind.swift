public import DBus

/// What a D-Bus error from BlueZ means for a board link (reference/bluez-dbus.md §3.3, §4.1).
public enum BlueZErrorKind: Hashable, Sendable {
    /// Another operation is in progress (`InProgress`, or `Failed` "Operation already in
    /// progress"): back off and retry.
    case inProgress
    /// The LE connection attempt was aborted or cancelled (`le-connection-abort-by-local`,
    /// `Software caused connection abort`, `br-connection-canceled`…): back off and retry.
    case connectionAborted
    /// The object is gone (`UnknownObject`, `DoesNotExist`): find the board again.
    case objectGone
    /// The device is not connected (`Failed` "Not connected", `NotConnected`): the link is down.
    case notConnected
    /// The adapter is off (`NotReady`).
    case notReady
    /// The bus policy or BlueZ refused the caller (`AccessDenied`, `NotAuthorized`).
    case accessDenied
    /// No reply in time (`NoReply`, `Timeout`).
    case timeout
    /// The bus connection or BlueZ itself is gone (`Disconnected`, `ServiceUnknown`,
    /// `NameHasNoOwner`).
    case serviceGone
    /// The local call was cancelled.
    case cancelled
    /// Anything else (`NotSupported`, `NotPermitted`, other `Failed` texts, odd replies).
    case other

    /// Texts of `org.bluez.Error.Failed` replies that mean "the connect attempt was aborted".
    public static let abortTexts: [String] = [
        "le-connection-abort-by-local",
        "le-connection-abort-by-remote",
        "software caused connection abort",
        "br-connection-canceled",
        "le-connection-busy",
        "br-connection-busy",
    ]

    /// Classifies `error`.
    public init(_ error: DBusError) {
        let text = error.message.lowercased()
        switch error.name {
        case BlueZNames.Error.inProgress:
            self = .inProgress
        case BlueZNames.Error.failed:
            if text.contains("operation already in progress") || text.contains("in progress") {
                self = .inProgress
            } else if Self.abortTexts.contains(where: { text.contains($0) }) {
                self = .connectionAborted
            } else if text.contains("not connected") {
                self = .notConnected
            } else {
                self = .other
            }
        case BlueZNames.Error.notConnected:
            self = .notConnected
        case BlueZNames.Error.notReady:
            self = .notReady
        case BlueZNames.Error.notAuthorized, DBusError.Name.accessDenied:
            self = .accessDenied
        case DBusError.Name.unknownObject, BlueZNames.Error.doesNotExist:
            self = .objectGone
        case DBusError.Name.noReply, DBusError.Name.timeout:
            self = .timeout
        case DBusError.Name.disconnected, DBusError.Name.serviceUnknown, DBusError.Name.nameHasNoOwner:
            self = .serviceGone
        case DBusError.Name.cancelled:
            self = .cancelled
        default:
            self = .other
        }
    }

    /// Whether a `Connect` that failed this way is retried after a short back-off.
    public var isTransientConnectFailure: Bool {
        self == .inProgress || self == .connectionAborted
    }
}

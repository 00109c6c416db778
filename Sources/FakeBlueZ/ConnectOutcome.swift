import DBus

/// How one `Device1.Connect` ends: success, or one of the failures real BlueZ produces
/// (reference/bluez-dbus.md §3.3). Queued per board with
/// ``FakeBlueZ/failNextConnects(board:count:outcome:)`` (`boardsim ctl fail-connects`).
public enum ConnectOutcome: String, Hashable, Sendable, CaseIterable, Codable {
    /// The link comes up: `Connected=true`, the reply, GATT discovery, `ServicesResolved=true`.
    case success
    /// The link comes up briefly and aborts (RF interference): `Connected=true`, the reply
    /// `Failed` "le-connection-abort-by-local" (or the old text in 5.61 mode), `Connected=false`.
    case abort
    /// The board does not answer: after the connect timeout, `Failed`
    /// "le-connection-abort-by-local" without `Connected` ever changing.
    case timeout
    /// `InProgress` "In Progress" at once (bonding or another Connect pending).
    case inProgress = "in-progress"
    /// `Failed` "Operation already in progress" at once (EALREADY: an ATT socket is busy).
    case already
    /// The link drops while connecting: `Failed` "br-connection-canceled" after the delay.
    case canceled
    /// Like ``abort`` but with BlueZ ≤ 5.61's text "Software caused connection abort".
    case oldAbort = "old-abort"
    /// `Failed` "Input/output error" at once (socket creation failed).
    case ioError = "io-error"

    /// The names `fail-connects --error` accepts, for usage messages.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// Whether the reply comes at once, without a connection attempt.
    var isImmediate: Bool {
        switch self {
        case .inProgress, .already, .ioError: true
        case .success, .abort, .timeout, .canceled, .oldAbort: false
        }
    }

    /// The error an immediate outcome answers with.
    var immediateError: DBusError? {
        switch self {
        case .inProgress: BlueZErrors.inProgress
        case .already: BlueZErrors.alreadyConnecting
        case .ioError: BlueZErrors.ioError
        case .success, .abort, .timeout, .canceled, .oldAbort: nil
        }
    }
}

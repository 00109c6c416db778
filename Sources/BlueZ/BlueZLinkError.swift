public import DBus

/// Why a board link could not be established or was lost. Its ``description`` is what
/// ``BlueZBoardTransport/lastError`` shows.
public enum BlueZLinkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The D-Bus connection is down (the manager keeps reconnecting).
    case busUnavailable
    /// `org.bluez` has no owner on the bus (bluetoothd not running).
    case bluezUnavailable
    /// The bus policy refused access to BlueZ.
    case notAuthorized(String)
    /// No adapter with that name (or none at all when `nil`).
    case noAdapter(String?)
    /// The adapter is powered off.
    case adapterPoweredOff(String)
    /// The board was not found (not seen in a scan, or its object vanished).
    case deviceNotFound(String)
    /// `Device1.Connect` failed.
    case connectFailed(address: String, error: DBusError)
    /// A step did not finish in time (`what` names it).
    case timeout(String)
    /// The link went down while it was being set up (`reason` says how).
    case linkLost(String)
    /// The board lacks a characteristic its profile needs.
    case missingCharacteristic(String)
    /// `GattCharacteristic1.StartNotify` failed.
    case notifyFailed(uuid: String, error: DBusError)
    /// The board's adapter could not be created (invalid options).
    case adapterOptions(String)
    /// The operation was cancelled (a user `disconnect()`).
    case cancelled

    /// A readable message naming what failed.
    public var description: String {
        switch self {
        case .busUnavailable: "the D-Bus system bus is not available"
        case .bluezUnavailable: "BlueZ (org.bluez) is not running"
        case .notAuthorized(let detail): "access to BlueZ denied: \(detail)"
        case .noAdapter(let name): name.map { "no Bluetooth adapter \($0)" } ?? "no Bluetooth adapter"
        case .adapterPoweredOff(let name): "Bluetooth adapter \(name) is powered off"
        case .deviceNotFound(let what): "board not found: \(what)"
        case .connectFailed(let address, let error): "connect to \(address) failed: \(error)"
        case .timeout(let what): "timed out: \(what)"
        case .linkLost(let reason): "link lost: \(reason)"
        case .missingCharacteristic(let uuid): "the board has no GATT characteristic \(uuid)"
        case .notifyFailed(let uuid, let error): "could not subscribe to \(uuid): \(error)"
        case .adapterOptions(let detail): "invalid board options: \(detail)"
        case .cancelled: "cancelled"
        }
    }
}

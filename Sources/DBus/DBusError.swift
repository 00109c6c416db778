/// A D-Bus error: the error name (`org.freedesktop.DBus.Error.UnknownObject`,
/// `org.bluez.Error.Failed`…) and its human-readable message.
///
/// Every failure of this module is one: error replies from peers, failures reported by
/// libdbus (`DBusError` in C), timeouts (``Name/noReply``), a lost connection
/// (``Name/disconnected``), and invalid input rejected before it reaches libdbus
/// (``Name/invalidArgs``). Method handlers answer with one through
/// ``DBusMethodInvocation/fail(_:)``.
public struct DBusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The error name, e.g. `org.bluez.Error.InProgress`.
    public var name: String
    /// The message text, e.g. `Operation already in progress` (may be empty).
    public var message: String

    /// An error named `name` with the text `message`.
    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// `name: message`.
    public var description: String {
        message.isEmpty ? name : "\(name): \(message)"
    }

    /// Well-known error names of the D-Bus specification, and this module's own.
    public enum Name {
        /// A generic failure.
        public static let failed = "org.freedesktop.DBus.Error.Failed"
        /// Out of memory.
        public static let noMemory = "org.freedesktop.DBus.Error.NoMemory"
        /// The destination bus name has no owner and cannot be activated.
        public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
        /// `GetNameOwner` on a name nobody owns.
        public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
        /// No reply arrived in time (the call timed out).
        public static let noReply = "org.freedesktop.DBus.Error.NoReply"
        /// Input/output error.
        public static let ioError = "org.freedesktop.DBus.Error.IOError"
        /// A malformed address.
        public static let badAddress = "org.freedesktop.DBus.Error.BadAddress"
        /// Not supported.
        public static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
        /// A limit was exceeded.
        public static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"
        /// Permission denied by the bus policy.
        public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
        /// Authentication failed.
        public static let authFailed = "org.freedesktop.DBus.Error.AuthFailed"
        /// Nobody listens at the address.
        public static let noServer = "org.freedesktop.DBus.Error.NoServer"
        /// A timeout (other than a method call's).
        public static let timeout = "org.freedesktop.DBus.Error.Timeout"
        /// The network is unreachable.
        public static let noNetwork = "org.freedesktop.DBus.Error.NoNetwork"
        /// The address is in use.
        public static let addressInUse = "org.freedesktop.DBus.Error.AddressInUse"
        /// The connection is closed (or was lost before the reply came).
        public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
        /// Invalid arguments (also: invalid input rejected by this module).
        public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        /// A file does not exist (e.g. the bus socket).
        public static let fileNotFound = "org.freedesktop.DBus.Error.FileNotFound"
        /// A file exists.
        public static let fileExists = "org.freedesktop.DBus.Error.FileExists"
        /// The object has no such method (or the signature does not match).
        public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        /// No object at the path.
        public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        /// The object has no such interface.
        public static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
        /// The interface has no such property.
        public static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
        /// The property cannot be written.
        public static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
        /// A match rule is malformed.
        public static let matchRuleInvalid = "org.freedesktop.DBus.Error.MatchRuleInvalid"
        /// A match rule to remove does not exist.
        public static let matchRuleNotFound = "org.freedesktop.DBus.Error.MatchRuleNotFound"
        /// A signature is invalid or does not match.
        public static let invalidSignature = "org.freedesktop.DBus.Error.InvalidSignature"
        /// The object path is already registered on this connection.
        public static let objectPathInUse = "org.freedesktop.DBus.Error.ObjectPathInUse"
        /// A message or body is inconsistent.
        public static let inconsistentMessage = "org.freedesktop.DBus.Error.InconsistentMessage"
        /// The caller's task was cancelled while waiting for a reply (this module's own name).
        public static let cancelled = "org.boardbridge.DBus.Error.Cancelled"
    }

    /// The error libdbus itself sends for a method call nobody handles, with its exact text
    /// (`Method "M" with signature "S" on interface "I" doesn't exist` and a newline).
    /// `name` is ``Name/unknownObject`` when no object is at the path, else
    /// ``Name/unknownMethod``. A call without interface reads `(null)` there, as from libdbus.
    public static func noSuchMethod(_ call: DBusMessage, name: String = Name.unknownMethod) -> DBusError {
        let interface = call.interface.isEmpty ? "(null)" : call.interface
        return DBusError(
            name: name,
            message:
                "Method \"\(call.member)\" with signature \"\(call.signature)\" on interface \"\(interface)\" doesn't exist\n"
        )
    }

    /// The error of an operation on a closed or lost connection.
    static let notConnected = DBusError(name: Name.disconnected, message: "Not connected")
}

/// A received (or about to be sent) D-Bus message as plain Swift values.
///
/// Header fields that a message does not carry are empty strings (a method return has no
/// `member`; a method call may omit `interface`; peer-to-peer messages have no `sender`).
public struct DBusMessage: Hashable, Sendable {
    /// The four message types.
    public enum Kind: Hashable, Sendable {
        /// A method call.
        case methodCall
        /// A successful reply.
        case methodReturn
        /// An error reply.
        case error
        /// A signal.
        case signal
    }

    /// The message type.
    public var kind: Kind
    /// The unique bus name of the sending connection (`:1.7`); empty when absent.
    public var sender: String
    /// The destination bus name; empty for broadcast signals.
    public var destination: String
    /// The object path (method calls and signals).
    public var path: String
    /// The interface (signals always; method calls usually).
    public var interface: String
    /// The method or signal name.
    public var member: String
    /// The error name (error replies only).
    public var errorName: String
    /// The serial number the sender gave the message.
    public var serial: UInt32
    /// For replies: the serial of the call answered.
    public var replySerial: UInt32
    /// Whether a method call's caller said it wants no reply.
    public var noReplyExpected: Bool
    /// The arguments.
    public var body: [DBusValue]

    /// A message with the given fields; the others empty.
    public init(
        kind: Kind, sender: String = "", destination: String = "", path: String = "", interface: String = "",
        member: String = "", errorName: String = "", serial: UInt32 = 0, replySerial: UInt32 = 0,
        noReplyExpected: Bool = false, body: [DBusValue] = []
    ) {
        self.kind = kind
        self.sender = sender
        self.destination = destination
        self.path = path
        self.interface = interface
        self.member = member
        self.errorName = errorName
        self.serial = serial
        self.replySerial = replySerial
        self.noReplyExpected = noReplyExpected
        self.body = body
    }

    /// The body's signature, e.g. `oa{sa{sv}}`.
    public var signature: String {
        DBusValue.signature(of: body)
    }

    /// For an error reply: the error it carries (name and first string argument, as libdbus's
    /// `dbus_set_error_from_message` reads it).
    public var error: DBusError? {
        guard kind == .error else { return nil }
        return DBusError(name: errorName, message: body.first?.stringValue ?? "")
    }
}

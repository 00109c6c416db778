internal import CDBus

/// Owns one reference to a libdbus `DBusMessage` and releases it in `deinit`.
///
/// Messages are not locked by libdbus; they are used on the main actor only (the unchecked
/// `Sendable` lets a handle travel through continuations that resume there).
final class DBusMessageHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes over a reference the caller owns (from `dbus_message_new_*` or `steal_reply`).
    init(adopting pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Adds a reference to a borrowed message (one handed to a callback).
    init(retaining pointer: OpaquePointer) {
        self.pointer = dbus_message_ref(pointer)
    }

    deinit {
        dbus_message_unref(pointer)
    }

    // MARK: Creating (names checked here, since libdbus aborts on invalid ones)

    /// A method call (`dbus_message_new_method_call`).
    static func methodCall(
        destination: String?, path: String, interface: String?, member: String
    )
        throws(DBusError) -> DBusMessageHandle
    {
        try check(path: path, interface: interface, member: member)
        if let destination {
            guard DBusNames.isValidBusName(destination) else {
                throw DBusError(name: DBusError.Name.invalidArgs, message: "Invalid bus name '\(destination)'")
            }
        }
        let created = withOptionalCString(destination) { destination in
            withOptionalCString(interface) { interface in
                dbus_message_new_method_call(destination, path, interface, member)
            }
        }
        guard let created else { throw DBusError(name: DBusError.Name.noMemory, message: "Out of memory") }
        return DBusMessageHandle(adopting: created)
    }

    /// A signal (`dbus_message_new_signal`).
    static func signal(path: String, interface: String, member: String) throws(DBusError) -> DBusMessageHandle {
        try check(path: path, interface: interface, member: member)
        guard let created = dbus_message_new_signal(path, interface, member) else {
            throw DBusError(name: DBusError.Name.noMemory, message: "Out of memory")
        }
        return DBusMessageHandle(adopting: created)
    }

    /// A method return answering this call (`dbus_message_new_method_return`).
    func makeReturn() -> DBusMessageHandle? {
        dbus_message_new_method_return(pointer).map { DBusMessageHandle(adopting: $0) }
    }

    /// An error reply answering this call (`dbus_message_new_error`). An invalid error name
    /// becomes `org.freedesktop.DBus.Error.Failed` (libdbus would abort on it).
    func makeError(_ error: DBusError) -> DBusMessageHandle? {
        let name = DBusNames.isValidErrorName(error.name) ? error.name : DBusError.Name.failed
        let text = error.message.replacingNUL()
        return dbus_message_new_error(pointer, name, text).map { DBusMessageHandle(adopting: $0) }
    }

    private static func check(path: String, interface: String?, member: String) throws(DBusError) {
        guard DBusNames.isValidObjectPath(path) else {
            throw DBusError(name: DBusError.Name.invalidArgs, message: "Invalid object path '\(path)'")
        }
        if let interface {
            guard DBusNames.isValidInterfaceName(interface) else {
                throw DBusError(name: DBusError.Name.invalidArgs, message: "Invalid interface name '\(interface)'")
            }
        }
        guard DBusNames.isValidMemberName(member) else {
            throw DBusError(name: DBusError.Name.invalidArgs, message: "Invalid member name '\(member)'")
        }
    }

    // MARK: Header

    var type: Int32 { dbus_message_get_type(pointer) }
    var path: String { string(dbus_message_get_path(pointer)) }
    var interface: String { string(dbus_message_get_interface(pointer)) }
    var member: String { string(dbus_message_get_member(pointer)) }
    var sender: String { string(dbus_message_get_sender(pointer)) }
    var destination: String { string(dbus_message_get_destination(pointer)) }
    var errorName: String { string(dbus_message_get_error_name(pointer)) }
    var noReplyExpected: Bool { dbus_message_get_no_reply(pointer) != 0 }

    var kind: DBusMessage.Kind? {
        switch type {
        case DBusMessageTypeCode.methodCall: return .methodCall
        case DBusMessageTypeCode.methodReturn: return .methodReturn
        case DBusMessageTypeCode.error: return .error
        case DBusMessageTypeCode.signal: return .signal
        default: return nil
        }
    }

    // MARK: Body

    /// Appends `body` (validated first). On failure the message must not be sent.
    func append(_ body: [DBusValue]) throws(DBusError) {
        try DBusValue.validate(body: body)
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(pointer, &iterator)
        for value in body {
            guard DBusMessageCodec.append(value, to: &iterator) else {
                throw DBusError(name: DBusError.Name.noMemory, message: "Could not append arguments")
            }
        }
    }

    /// The body as values (strings copied, so they outlive the message).
    func readBody() -> [DBusValue] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(pointer, &iterator) != 0 else { return [] }
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iterator) != DBusTypeCode.invalid {
            guard let value = DBusMessageCodec.read(&iterator) else { break }
            values.append(value)
            dbus_message_iter_next(&iterator)
        }
        return values
    }

    /// The first argument when it is a string (for `arg0` matching without decoding it all).
    var firstStringArgument: String? {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(pointer, &iterator) != 0 else { return nil }
        guard dbus_message_iter_get_arg_type(&iterator) == DBusTypeCode.string else { return nil }
        return DBusMessageCodec.read(&iterator)?.stringValue
    }

    /// The whole message as a Swift value.
    func decode() -> DBusMessage {
        DBusMessage(
            kind: kind ?? .signal, sender: sender, destination: destination, path: path, interface: interface,
            member: member, errorName: errorName, serial: dbus_message_get_serial(pointer),
            replySerial: dbus_message_get_reply_serial(pointer), noReplyExpected: noReplyExpected,
            body: readBody())
    }

    private func string(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }
}

/// Calls `body` with a C string for `string`, or with `nil`.
func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}

extension String {
    /// The string with NUL characters replaced (C strings end at the first NUL).
    func replacingNUL() -> String {
        guard utf8.contains(0) else { return self }
        return String(decoding: utf8.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }
}

/// The D-Bus type codes as libdbus's `int` type arguments.
///
/// libdbus defines them as `((int) 'x')` macros, which Swift does not import, so they are
/// spelled here from their ASCII codes (D-Bus specification, "Type system").
enum DBusTypeCode {
    static let invalid: Int32 = 0
    static let byte: Int32 = 121  // y
    static let boolean: Int32 = 98  // b
    static let int16: Int32 = 110  // n
    static let uint16: Int32 = 113  // q
    static let int32: Int32 = 105  // i
    static let uint32: Int32 = 117  // u
    static let int64: Int32 = 120  // x
    static let uint64: Int32 = 116  // t
    static let double: Int32 = 100  // d
    static let string: Int32 = 115  // s
    static let objectPath: Int32 = 111  // o
    static let signature: Int32 = 103  // g
    static let unixFD: Int32 = 104  // h
    static let array: Int32 = 97  // a
    static let variant: Int32 = 118  // v
    static let `struct`: Int32 = 114  // r
    static let dictEntry: Int32 = 101  // e

    /// The signature characters that open and close structs and dictionary entries.
    static let structOpen = UInt8(ascii: "(")
    static let structClose = UInt8(ascii: ")")
    static let dictOpen = UInt8(ascii: "{")
    static let dictClose = UInt8(ascii: "}")

    /// Whether `code` (a signature character) is a basic type: it can be a dictionary key.
    static func isBasic(_ code: UInt8) -> Bool {
        switch Int32(code) {
        case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double, string, objectPath, signature,
            unixFD:
            return true
        default:
            return false
        }
    }
}

/// Message type numbers as libdbus returns them from `dbus_message_get_type`.
enum DBusMessageTypeCode {
    static let methodCall: Int32 = 1
    static let methodReturn: Int32 = 2
    static let error: Int32 = 3
    static let signal: Int32 = 4
}

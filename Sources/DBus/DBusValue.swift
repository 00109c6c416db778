/// One D-Bus value of any type: what message bodies are made of.
///
/// Containers carry the signatures of their elements, so that an empty array or dictionary
/// still has a complete type (`.array("s", [])` is `as`). Use ``typeSignature`` for a
/// value's signature and ``validate()`` to check that containers hold what they declare
/// (every send checks it and throws instead of handing libdbus something it would abort on).
///
/// Reading: the `…Value` accessors in `DBusValue+Accessors.swift` look through variants,
/// so `entry.value.stringValue` works on an `a{sv}` entry. Building: the helpers in
/// `DBusValue+Builders.swift` (``bytes(_:)``, ``strings(_:)``, ``propertyDictionary(_:)``…).
public enum DBusValue: Hashable, Sendable {
    /// `y`: an unsigned byte.
    case byte(UInt8)
    /// `b`: a boolean (32 bits on the wire).
    case bool(Bool)
    /// `n`: a signed 16-bit integer (BlueZ's RSSI, TxPower).
    case int16(Int16)
    /// `q`: an unsigned 16-bit integer (MTU, Appearance, Handle, manufacturer ids).
    case uint16(UInt16)
    /// `i`: a signed 32-bit integer.
    case int32(Int32)
    /// `u`: an unsigned 32-bit integer.
    case uint32(UInt32)
    /// `x`: a signed 64-bit integer.
    case int64(Int64)
    /// `t`: an unsigned 64-bit integer.
    case uint64(UInt64)
    /// `d`: an IEEE 754 double.
    case double(Double)
    /// `s`: a UTF-8 string without NUL characters.
    case string(String)
    /// `o`: an object path (see ``DBusNames/isValidObjectPath(_:)``).
    case objectPath(String)
    /// `g`: a type signature.
    case signature(String)
    /// `h`: a Unix file descriptor.
    ///
    /// Sending: libdbus duplicates the descriptor, the caller keeps (and closes) its own.
    /// Receiving: the value is a fresh duplicate that the receiver owns and must close.
    case unixFD(Int32)
    /// `a…`: an array; the first value is the element signature (`"y"` for `ay`).
    case array(String, [DBusValue])
    /// `a{…}`: a dictionary; key signature (a basic type), value signature, entries in order.
    indirect case dictionary(String, String, [DBusDictEntry])
    /// `(…)`: a struct of one or more members.
    case `struct`([DBusValue])
    /// `v`: a variant holding one value of any type.
    indirect case variant(DBusValue)

    /// The value's complete type signature, e.g. `a{sv}` or `(oq)`.
    public var typeSignature: String {
        switch self {
        case .byte: return "y"
        case .bool: return "b"
        case .int16: return "n"
        case .uint16: return "q"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .signature: return "g"
        case .unixFD: return "h"
        case .array(let element, _): return "a" + element
        case .dictionary(let key, let value, _): return "a{" + key + value + "}"
        case .struct(let members): return "(" + members.map(\.typeSignature).joined() + ")"
        case .variant: return "v"
        }
    }

    /// The signature of a message body made of `values` (their signatures concatenated).
    public static func signature(of values: [DBusValue]) -> String {
        values.map(\.typeSignature).joined()
    }
}

/// One entry of a ``DBusValue/dictionary(_:_:_:)``.
public struct DBusDictEntry: Hashable, Sendable {
    /// The key: a basic value (string, object path, integer…).
    public var key: DBusValue
    /// The value.
    public var value: DBusValue

    /// An entry mapping `key` to `value`.
    public init(key: DBusValue, value: DBusValue) {
        self.key = key
        self.value = value
    }
}

extension DBusValue: CustomStringConvertible {
    /// A compact, readable rendering (`{"Connected": <true>}`), for logs and test failures.
    public var description: String {
        switch self {
        case .byte(let value): return "0x" + String(value, radix: 16)
        case .bool(let value): return value ? "true" : "false"
        case .int16(let value): return "int16 \(value)"
        case .uint16(let value): return "uint16 \(value)"
        case .int32(let value): return "int32 \(value)"
        case .uint32(let value): return "uint32 \(value)"
        case .int64(let value): return "int64 \(value)"
        case .uint64(let value): return "uint64 \(value)"
        case .double(let value): return "\(value)"
        case .string(let value): return "\"\(value)\""
        case .objectPath(let value): return "objpath \(value)"
        case .signature(let value): return "signature \(value)"
        case .unixFD(let value): return "fd \(value)"
        case .array("y", let elements):
            return "bytes [" + elements.compactMap(\.byteValue).map { String($0, radix: 16) }.joined(separator: " ")
                + "]"
        case .array(_, let elements): return "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(_, _, let entries):
            return "{" + entries.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .struct(let members): return "(" + members.map(\.description).joined(separator: ", ") + ")"
        case .variant(let inner): return "<\(inner)>"
        }
    }
}

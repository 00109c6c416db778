/// Syntax checks for the names and strings D-Bus puts in message headers and bodies.
///
/// libdbus aborts the process when it is handed an invalid path, name or signature (its
/// "check failed" warnings are fatal by default), so every public entry point of this module
/// checks its input with these functions first and throws `DBusError.Name.invalidArgs`
/// instead. The rules are those of the D-Bus specification, "Valid names".
public enum DBusNames {
    /// Longest name or signature D-Bus allows.
    public static let maximumLength = 255

    /// Whether `path` is a valid object path: `/`, or `/`-separated non-empty elements of
    /// `[A-Za-z0-9_]`, without a trailing `/`.
    public static func isValidObjectPath(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard let first = bytes.first, first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        guard bytes.last != UInt8(ascii: "/") else { return false }
        var previousWasSlash = false
        for byte in bytes {
            if byte == UInt8(ascii: "/") {
                if previousWasSlash { return false }
                previousWasSlash = true
            } else {
                guard isAlphanumericOrUnderscore(byte) else { return false }
                previousWasSlash = false
            }
        }
        return true
    }

    /// Whether `name` is a valid interface name: at least two `.`-separated elements, each
    /// `[A-Za-z_][A-Za-z0-9_]*`, at most 255 bytes.
    public static func isValidInterfaceName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        let elements = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard elements.count >= 2 else { return false }
        return elements.allSatisfy { element in
            guard let first = element.first, !isDigit(first) else { return false }
            return element.allSatisfy(isAlphanumericOrUnderscore)
        }
    }

    /// Whether `name` is a valid error name (the same rules as interface names).
    public static func isValidErrorName(_ name: String) -> Bool {
        isValidInterfaceName(name)
    }

    /// Whether `name` is a valid member (method or signal) name: `[A-Za-z_][A-Za-z0-9_]*`, at
    /// most 255 bytes.
    public static func isValidMemberName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= maximumLength, !isDigit(first) else { return false }
        return bytes.allSatisfy(isAlphanumericOrUnderscore)
    }

    /// Whether `name` is a valid bus name: a unique name (`:1.42`) or a well-known name
    /// (`org.bluez`): at least two `.`-separated elements of `[A-Za-z0-9_-]`, where only unique
    /// names may have elements starting with a digit.
    public static func isValidBusName(_ name: String) -> Bool {
        var bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        let isUnique = bytes[0] == UInt8(ascii: ":")
        if isUnique { bytes.removeFirst() }
        let elements = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard elements.count >= 2 else { return false }
        return elements.allSatisfy { element in
            guard let first = element.first else { return false }
            if !isUnique && isDigit(first) { return false }
            return element.allSatisfy { isAlphanumericOrUnderscore($0) || $0 == UInt8(ascii: "-") }
        }
    }

    /// Whether `signature` is a valid type signature: zero or more complete types, at most
    /// 255 bytes, with at most 32 nested arrays and 32 nested structs.
    public static func isValidSignature(_ signature: String) -> Bool {
        DBusSignature.completeTypes(of: signature) != nil
    }

    /// Whether `signature` is exactly one complete type (as a variant or an array element
    /// must be).
    public static func isSingleCompleteType(_ signature: String) -> Bool {
        DBusSignature.completeTypes(of: signature)?.count == 1
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isAlphanumericOrUnderscore(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte == UInt8(ascii: "_")
    }
}

/// Parsing of type signatures into complete types.
enum DBusSignature {
    static let maximumArrayDepth = 32
    static let maximumStructDepth = 32

    /// The complete types `signature` consists of, or `nil` when it is not a valid signature.
    static func completeTypes(of signature: String) -> [String]? {
        let bytes = Array(signature.utf8)
        guard bytes.count <= DBusNames.maximumLength else { return nil }
        var types: [String] = []
        var index = 0
        while index < bytes.count {
            guard let end = parseCompleteType(bytes, at: index, arrayDepth: 0, structDepth: 0) else { return nil }
            types.append(String(decoding: bytes[index..<end], as: UTF8.self))
            index = end
        }
        return types
    }

    /// The key and value signatures of a dictionary-entry array signature such as `a{sv}`,
    /// or `nil` when `signature` is not one.
    static func dictionaryParts(of signature: String) -> (key: String, value: String)? {
        let bytes = Array(signature.utf8)
        guard bytes.count >= 5, bytes[0] == UInt8(ascii: "a"), bytes[1] == DBusTypeCode.dictOpen,
            bytes[bytes.count - 1] == DBusTypeCode.dictClose, DBusTypeCode.isBasic(bytes[2])
        else { return nil }
        let value = String(decoding: bytes[3..<(bytes.count - 1)], as: UTF8.self)
        guard DBusNames.isSingleCompleteType(value) else { return nil }
        return (String(decoding: bytes[2..<3], as: UTF8.self), value)
    }

    /// Parses one complete type starting at `index`; returns the index just past it.
    private static func parseCompleteType(
        _ bytes: [UInt8], at index: Int, arrayDepth: Int, structDepth: Int
    )
        -> Int?
    {
        guard index < bytes.count else { return nil }
        let code = bytes[index]
        if DBusTypeCode.isBasic(code) || Int32(code) == DBusTypeCode.variant { return index + 1 }
        if Int32(code) == DBusTypeCode.array {
            guard arrayDepth < maximumArrayDepth, index + 1 < bytes.count else { return nil }
            if bytes[index + 1] == DBusTypeCode.dictOpen {
                let keyIndex = index + 2
                guard keyIndex < bytes.count, DBusTypeCode.isBasic(bytes[keyIndex]) else { return nil }
                guard
                    let valueEnd = parseCompleteType(
                        bytes, at: keyIndex + 1, arrayDepth: arrayDepth + 1, structDepth: structDepth),
                    valueEnd < bytes.count, bytes[valueEnd] == DBusTypeCode.dictClose
                else { return nil }
                return valueEnd + 1
            }
            return parseCompleteType(bytes, at: index + 1, arrayDepth: arrayDepth + 1, structDepth: structDepth)
        }
        if code == DBusTypeCode.structOpen {
            guard structDepth < maximumStructDepth else { return nil }
            var position = index + 1
            var members = 0
            while position < bytes.count && bytes[position] != DBusTypeCode.structClose {
                guard
                    let end = parseCompleteType(
                        bytes, at: position, arrayDepth: arrayDepth, structDepth: structDepth + 1)
                else { return nil }
                position = end
                members += 1
            }
            guard position < bytes.count, members > 0 else { return nil }
            return position + 1
        }
        return nil
    }
}

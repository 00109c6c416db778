/// Bytes written as hex digits: the one reader and writer for board frames typed by people
/// (`boardbridge decode`, boardsim specifications, configured keys) and shown to them.
public enum HexBytes {
    /// The bytes of `text`: pairs of ASCII hex digits, either case, with any of the
    /// characters in `separators` ignored wherever they stand; `nil` for anything else (an
    /// odd number of digits, a sign, a non-ASCII digit).
    public static func parse(_ text: some StringProtocol, ignoring separators: String = " :") -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count / 2)
        var high: UInt8?
        for character in text {
            if separators.contains(character) { continue }
            guard let value = character.asciiHexValue else { return nil }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return high == nil ? bytes : nil
    }

    /// `bytes` as lower-case hex, two digits each, joined by `separator`.
    public static func string(_ bytes: some Sequence<UInt8>, separator: String = "") -> String {
        bytes.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined(separator: separator)
    }
}

extension Character {
    /// 0–15 for `0`–`9`, `a`–`f`, `A`–`F`; `nil` otherwise (other scripts' digits included).
    fileprivate var asciiHexValue: UInt8? {
        guard let ascii = asciiValue else { return nil }
        switch ascii {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return ascii - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return ascii - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return ascii - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension JSONValue {
    /// The compact JSON text as UTF-8 bytes: no white space, object members in their
    /// order, integral numbers without a fraction, `/` and non-ASCII left as they are,
    /// `"` `\` and control characters escaped.
    ///
    /// The bytes are returned in an array of their exact size: payloads wait in the MQTT
    /// queue (hundreds at once while the bridge starts), and the growing buffer they are
    /// built in is up to twice as large as the text.
    public func encoded() -> [UInt8] {
        var output: [UInt8] = []
        // Most messages are a few hundred bytes (a move, an event): few regrowths.
        output.reserveCapacity(256)
        append(to: &output)
        return output.withUnsafeBufferPointer { built in
            [UInt8](unsafeUninitializedCapacity: built.count) { exact, initialized in
                initialized = exact.initialize(from: built).1
            }
        }
    }

    /// The compact JSON text (see `encoded()`).
    public func encodedString() -> String {
        String(decoding: encoded(), as: UTF8.self)
    }

    private func append(to output: inout [UInt8]) {
        switch self {
        // Straight from the text's bytes: no array made per literal or number.
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value): output.append(contentsOf: Self.numberText(value).utf8)
        case .string(let value): JSONText.appendQuoted(value, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.append(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONText.appendQuoted(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.append(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// `3` for integral values within ±2^53, the shortest round-tripping form otherwise
    /// (`0.1`, `1e+300`), `null` for infinities and NaN (JSON has no spelling for them).
    public static func numberText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(.towardZero), abs(value) <= 9_007_199_254_740_992 {
            return String(Int64(value))
        }
        return value.description
    }
}

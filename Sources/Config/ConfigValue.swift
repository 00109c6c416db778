/// A JSON-like value: the shape in which the configuration is published (without secrets).
public enum ConfigValue: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` / `false`.
    case bool(Bool)
    /// A whole number.
    case int(Int)
    /// A fractional number.
    case double(Double)
    /// Text.
    case string(String)
    /// A list.
    case array([ConfigValue])
    /// An object; rendered with its keys sorted.
    case object([String: ConfigValue])

    /// Compact JSON with sorted keys (deterministic).
    public var jsonText: String {
        var output = ""
        write(to: &output)
        return output
    }

    /// The compact JSON text.
    public var description: String { jsonText }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .double(let value):
            if value.isFinite {
                output += value == value.rounded() && abs(value) < 1e15 ? "\(Int(value)).0" : "\(value)"
            } else {
                output += "null"
            }
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                item.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                Self.writeString(key, to: &output)
                output += ":"
                members[key]?.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }
}

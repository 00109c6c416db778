/// Reads typed values out of a ``YAMLNode`` tree and collects every problem it meets.
///
/// Each read returns `nil` (and records a ``ConfigError``) on bad input, so a reader
/// goes on and reports all errors of a file in one pass.
final class ConfigReader {
    /// The file name used in error messages.
    let file: String
    /// The environment secrets may be read from.
    let environment: [String: String]
    /// The directory relative paths in the file are resolved against.
    let baseDirectory: String
    /// Whether device paths (`boards[].serial`) must lead to a device now (`check-config`).
    var checksDevices = false
    /// Whether the secrets of the `hall:` section are read (`false` for the bridge, which
    /// never uses them: a shared file must not make it need the hall's environment).
    var resolvesHallSecrets = true
    /// Every problem so far.
    private(set) var errors: [ConfigError] = []

    init(file: String, environment: [String: String], baseDirectory: String) {
        self.file = file
        self.environment = environment
        self.baseDirectory = baseDirectory
    }

    /// Records a problem at `path`, located at `mark`.
    func fail(_ path: String, _ message: String, at mark: YAMLMark?) {
        errors.append(ConfigError(path: path, message: message, file: file, mark: mark))
    }

    /// `path.key`, or `key` at the top level.
    static func child(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    /// `path[index]`.
    static func element(_ path: String, _ index: Int) -> String {
        "\(path)[\(index)]"
    }

    // MARK: Collections

    /// The node as a mapping that admits only `keys`; reports wrong type, unknown keys
    /// (with the nearest valid key) and duplicate keys.
    func mapping(_ node: YAMLNode, path: String, keys: [String]) -> ConfigMapping? {
        guard let pairs = pairs(node, path: path) else { return nil }
        var entries: [String: YAMLNode.Pair] = [:]
        for (key, pair) in pairs {
            if !keys.contains(key) {
                fail(path, KeySuggestion.unknownKeyMessage(key, validKeys: keys), at: pair.key.mark)
                continue
            }
            entries[key] = pair
        }
        return ConfigMapping(reader: self, path: path, node: node, entries: entries)
    }

    /// The node's pairs with string keys, reporting non-mapping nodes, non-string keys
    /// and duplicate keys (the first occurrence is kept).
    func pairs(_ node: YAMLNode, path: String) -> [(String, YAMLNode.Pair)]? {
        guard case .mapping(let pairs) = node.content else {
            fail(path, "expected a mapping, got \(Self.describe(node))", at: node.mark)
            return nil
        }
        var seen: [String: YAMLMark] = [:]
        var result: [(String, YAMLNode.Pair)] = []
        for pair in pairs {
            guard case .scalar(let key, _) = pair.key.content else {
                fail(path, "keys must be strings, got \(pair.key.kindDescription)", at: pair.key.mark)
                continue
            }
            if let first = seen[key] {
                fail(path, "duplicate key \(Self.quote(key)) (first at line \(first.line))", at: pair.key.mark)
                continue
            }
            seen[key] = pair.key.mark
            result.append((key, pair))
        }
        return result
    }

    /// The node's items, or `nil` (reported) if it is not a sequence.
    func sequence(_ node: YAMLNode, path: String) -> [YAMLNode]? {
        guard case .sequence(let items) = node.content else {
            fail(path, "expected a list, got \(Self.describe(node))", at: node.mark)
            return nil
        }
        return items
    }

    // MARK: Scalars

    /// Any scalar's text (a plain `12` is the string "12").
    func string(_ node: YAMLNode, path: String) -> String? {
        guard case .scalar(let text, _) = node.content else {
            fail(path, "expected a string, got \(node.kindDescription)", at: node.mark)
            return nil
        }
        return text
    }

    /// An integer in `range` (decimal, or hexadecimal with `0x`).
    func int(_ node: YAMLNode, path: String, in range: ClosedRange<Int>) -> Int? {
        guard let text = scalarText(node, path: path, expected: "an integer") else { return nil }
        guard let value = Self.parseInt(text) else {
            fail(path, "expected an integer, got \(Self.quote(text))", at: node.mark)
            return nil
        }
        guard range.contains(value) else {
            fail(path, "\(value) is out of range, expected \(range.lowerBound) to \(range.upperBound)", at: node.mark)
            return nil
        }
        return value
    }

    /// A finite number in `range`.
    func double(_ node: YAMLNode, path: String, in range: ClosedRange<Double>) -> Double? {
        guard let text = scalarText(node, path: path, expected: "a number") else { return nil }
        guard let value = Self.parseDouble(text) else {
            fail(path, "expected a number, got \(Self.quote(text))", at: node.mark)
            return nil
        }
        guard range.contains(value) else {
            fail(
                path,
                "\(text) is out of range, expected \(Self.format(range.lowerBound)) to "
                    + "\(Self.format(range.upperBound))", at: node.mark)
            return nil
        }
        return value
    }

    /// `true` or `false` (any letter case). YAML 1.1's yes/no/on/off are refused on purpose.
    func bool(_ node: YAMLNode, path: String) -> Bool? {
        guard let text = scalarText(node, path: path, expected: "true or false") else { return nil }
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default:
            fail(path, "expected true or false, got \(Self.quote(text))", at: node.mark)
            return nil
        }
    }

    /// One of `T`'s raw values; the message lists them: `unknown family "foo", expected one of …`.
    func choice<T: RawRepresentable & CaseIterable>(_ node: YAMLNode, path: String, noun: String) -> T?
    where T.RawValue == String {
        choice(node, path: path, noun: noun, spellings: T.allCases.map { ($0.rawValue, $0) })
    }

    /// One of the values a spelling table names (the contract's words for a type that is
    /// defined below the configuration, such as the kernel's orientation setting).
    func choice<T>(_ node: YAMLNode, path: String, noun: String, spellings: [(String, T)]) -> T? {
        let names = spellings.map(\.0)
        guard let text = scalarText(node, path: path, expected: "one of \(names.joined(separator: ", "))") else {
            return nil
        }
        guard let value = spellings.first(where: { $0.0 == text })?.1 else {
            fail(
                path, "unknown \(noun) \(Self.quote(text)), expected one of \(names.joined(separator: ", "))",
                at: node.mark)
            return nil
        }
        return value
    }

    private func scalarText(_ node: YAMLNode, path: String, expected: String) -> String? {
        guard case .scalar(let text, _) = node.content else {
            fail(path, "expected \(expected), got \(node.kindDescription)", at: node.mark)
            return nil
        }
        return text
    }

    // MARK: Text helpers

    /// A node for messages: `a mapping`, `a list`, or the scalar quoted.
    static func describe(_ node: YAMLNode) -> String {
        switch node.content {
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .scalar(let text, _): node.isNull ? "nothing" : quote(text)
        }
    }

    /// `"text"`, with control characters escaped and long text shortened.
    static func quote(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(64) {
            switch scalar {
            case "\"": shown += "\\\""
            case "\\": shown += "\\\\"
            case "\n": shown += "\\n"
            case "\t": shown += "\\t"
            case "\0": shown += "\\0"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    shown += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    shown.unicodeScalars.append(scalar)
                }
            }
        }
        if text.unicodeScalars.count > 64 { shown += "…" }
        return "\"\(shown)\""
    }

    static func parseInt(_ text: String) -> Int? {
        var body = Substring(text)
        var negative = false
        if body.first == "-" || body.first == "+" {
            negative = body.first == "-"
            body = body.dropFirst()
        }
        let magnitude: Int?
        if body.hasPrefix("0x") || body.hasPrefix("0X") {
            magnitude = Int(body.dropFirst(2), radix: 16)
        } else if !body.isEmpty, body.allSatisfy(\.isASCII), body.allSatisfy(\.isNumber) {
            magnitude = Int(body)
        } else {
            magnitude = nil
        }
        guard let magnitude else { return nil }
        return negative ? -magnitude : magnitude
    }

    static func parseDouble(_ text: String) -> Double? {
        let allowed = Set("0123456789+-.eE")
        guard !text.isEmpty, text.allSatisfy({ allowed.contains($0) }), let value = Double(text),
            value.isFinite
        else { return nil }
        return value
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

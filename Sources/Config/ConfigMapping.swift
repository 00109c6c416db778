/// A mapping whose keys were checked against the allowed set, with typed accessors that
/// fall back to a default when a key is absent or null (`key:` or `key: ~`).
struct ConfigMapping {
    let reader: ConfigReader
    /// The mapping's own key path.
    let path: String
    /// The mapping node (its mark locates "missing key" errors).
    let node: YAMLNode
    let entries: [String: YAMLNode.Pair]

    /// The path of `key` inside this mapping.
    func path(_ key: String) -> String { ConfigReader.child(path, key) }

    /// The value of `key`, or `nil` when absent or null.
    func value(_ key: String) -> YAMLNode? {
        guard let pair = entries[key], !pair.value.isNull else { return nil }
        return pair.value
    }

    /// The key node of `key` (for locating conflicts), when present.
    func keyNode(_ key: String) -> YAMLNode? { entries[key]?.key }

    /// Whether `key` is present with a non-null value.
    func has(_ key: String) -> Bool { value(key) != nil }

    /// Reports `key` as required but missing, at the start of this mapping.
    func missing(_ key: String) {
        reader.fail(path, "missing required key \(ConfigReader.quote(key))", at: node.mark)
    }

    func string(_ key: String) -> String? {
        value(key).flatMap { reader.string($0, path: path(key)) }
    }

    /// A string where an empty text means "not set".
    func nonEmptyString(_ key: String) -> String? {
        guard let text = string(key), !text.isEmpty else { return nil }
        return text
    }

    func string(_ key: String, default fallback: String) -> String {
        string(key) ?? fallback
    }

    func int(_ key: String, in range: ClosedRange<Int>) -> Int? {
        value(key).flatMap { reader.int($0, path: path(key), in: range) }
    }

    func int(_ key: String, in range: ClosedRange<Int>, default fallback: Int) -> Int {
        int(key, in: range) ?? fallback
    }

    func double(_ key: String, in range: ClosedRange<Double>, default fallback: Double) -> Double {
        value(key).flatMap { reader.double($0, path: path(key), in: range) } ?? fallback
    }

    func bool(_ key: String, default fallback: Bool) -> Bool {
        value(key).flatMap { reader.bool($0, path: path(key)) } ?? fallback
    }

    func choice<T: RawRepresentable & CaseIterable>(_ key: String, noun: String, default fallback: T) -> T
    where T.RawValue == String {
        value(key).flatMap { reader.choice($0, path: path(key), noun: noun) } ?? fallback
    }

    func choice<T>(_ key: String, noun: String, spellings: [(String, T)], default fallback: T) -> T {
        value(key).flatMap { reader.choice($0, path: path(key), noun: noun, spellings: spellings) } ?? fallback
    }

    /// A nested mapping admitting `keys`, or `nil` when absent, null or invalid.
    func mapping(_ key: String, keys: [String]) -> ConfigMapping? {
        value(key).flatMap { reader.mapping($0, path: path(key), keys: keys) }
    }

    /// A list's items with their paths, or `nil` when absent, null or not a list.
    func list(_ key: String) -> [(path: String, node: YAMLNode)]? {
        guard let node = value(key), let items = reader.sequence(node, path: path(key)) else { return nil }
        return items.enumerated().map { (ConfigReader.element(path(key), $0.offset), $0.element) }
    }
}

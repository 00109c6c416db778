/// The tag pairs of a PGN game header, in order, with at most one value per name.
public struct PGNTags: Hashable, Sendable, Codable, ExpressibleByDictionaryLiteral {
    /// One tag pair, e.g. `[White "Carlsen, Magnus"]`.
    public struct Tag: Hashable, Sendable, Codable {
        /// The tag name (`Event`, `White`, `TimeControl`, …).
        public var name: String
        /// The tag value, unescaped.
        public var value: String

        /// Creates a tag pair.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The tags in insertion order.
    public private(set) var all: [Tag]

    /// No tags.
    public init() { all = [] }

    /// The given pairs in order; a repeated name keeps its last value at its first place.
    public init(_ pairs: [(name: String, value: String)]) {
        all = []
        for (name, value) in pairs { self[name] = value }
    }

    /// Tags from a literal such as `["White": "Alice", "Black": "Bob"]`, in literal order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements.map { (name: $0.0, value: $0.1) })
    }

    /// The value of the tag `name` (names are case-sensitive, as in PGN). Setting a value
    /// replaces it in place or appends the tag; setting `nil` removes it.
    public subscript(name: String) -> String? {
        get { all.first { $0.name == name }?.value }
        set {
            if let index = all.firstIndex(where: { $0.name == name }) {
                if let newValue { all[index].value = newValue } else { all.remove(at: index) }
            } else if let newValue {
                all.append(Tag(name: name, value: newValue))
            }
        }
    }

    /// How many tags there are.
    public var count: Int { all.count }

    /// Whether there are no tags.
    public var isEmpty: Bool { all.isEmpty }
}

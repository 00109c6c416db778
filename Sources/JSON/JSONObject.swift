/// A JSON object whose members keep their insertion order.
///
/// Looking a key up is a linear search: the objects of this contract have a few dozen
/// members at most, and order matters more than lookup speed here.
public struct JSONObject: Equatable, Sendable {
    /// One `"key": value` pair.
    public struct Member: Equatable, Sendable {
        /// The key.
        public var key: String
        /// The value.
        public var value: JSONValue

        /// Creates a member.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members in order. Keys are unique.
    public private(set) var members: [Member]

    /// An empty object.
    public init() {
        members = []
    }

    /// An object with `pairs` in order. Repeating a key is a programmer error and traps.
    public init(uniqueKeysWithValues pairs: some Sequence<(String, JSONValue)>) {
        self.init(uniqueKeysWithValues: Array(pairs))
    }

    /// An object with `pairs` in order (an array, as literals give: iterated without generic
    /// code, which another module's caller cannot specialize and which boxed every pair).
    public init(uniqueKeysWithValues pairs: [(String, JSONValue)]) {
        members = []
        members.reserveCapacity(pairs.count)
        for (key, value) in pairs {
            // The keys are the caller's literals: checked in debug builds (every test), not
            // on every message the bridge publishes (a state message has over 20).
            assert(self[key] == nil, "duplicate JSON key \(key)")
            members.append(Member(key: key, value: value))
        }
    }

    /// Members whose keys the caller has already checked for uniqueness (the parser).
    init(uncheckedMembers: [Member]) {
        members = uncheckedMembers
    }

    /// The value of `key`. Setting replaces the value in place (keeping its position) or
    /// appends a new member; setting `nil` removes the member.
    public subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            let position = members.firstIndex { $0.key == key }
            switch (position, newValue) {
            case (let position?, let value?): members[position].value = value
            case (let position?, nil): members.remove(at: position)
            case (nil, let value?): members.append(Member(key: key, value: value))
            case (nil, nil): break
            }
        }
    }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// How many members there are.
    public var count: Int { members.count }

    /// Whether there are no members.
    public var isEmpty: Bool { members.isEmpty }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object with the members in the order written. Repeating a key traps.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(uniqueKeysWithValues: elements)
    }
}

extension JSONObject: Sequence {
    /// Iterates the members in order.
    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }
}

/// A JSON value. Objects keep their members in insertion order, so a payload built in
/// code is printed in the order it was written and every encoding is deterministic.
///
/// Numbers are `Double`s; integral values within ±2^53 print without a fraction
/// (`3`, not `3.0`). Two values are equal when they encode to the same text: object
/// member order is part of equality.
public enum JSONValue: Equatable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number. Non-finite values encode as `null`.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object whose members keep their order.
    case object(JSONObject)

    /// The deepest nesting of arrays and objects `init(parsing:)` accepts by default.
    public static let defaultMaximumDepth = 64

    /// `value` as a string, or `null` when it is `nil`.
    public init(_ value: String?) {
        self = value.map { .string($0) } ?? .null
    }

    /// `value` as a number, or `null` when it is `nil`.
    public init(_ value: Int?) {
        self = value.map { .number(Double($0)) } ?? .null
    }

    /// `value` as a number, or `null` when it is `nil` (or not finite).
    public init(_ value: Double?) {
        guard let value, value.isFinite else {
            self = .null
            return
        }
        self = .number(value)
    }

    /// `value` as a boolean, or `null` when it is `nil`.
    public init(_ value: Bool?) {
        self = value.map { .bool($0) } ?? .null
    }

    /// The member `key` when this is an object that has it.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The number, when this is a number.
    public var doubleValue: Double? {
        guard case .number(let value) = self else { return nil }
        return value
    }

    /// The number as an `Int`, when this is a number with no fractional part that fits.
    public var intValue: Int? {
        guard case .number(let value) = self, value.isFinite, value == value.rounded(.towardZero),
            abs(value) <= 9_007_199_254_740_992
        else { return nil }
        return Int(value)
    }

    /// The boolean, when this is `true` or `false`.
    public var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        guard case .array(let value) = self else { return nil }
        return value
    }

    /// The object, when this is an object.
    public var objectValue: JSONObject? {
        guard case .object(let value) = self else { return nil }
        return value
    }

    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// What kind of value this is, with an article, for error messages: `"a string"`,
    /// `"an object"`, `"null"`.
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral {
    /// `null`.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// A boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// A number.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// A number.
    public init(floatLiteral value: Double) { self = .number(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// An array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// An object with the members in the order written. Repeating a key is a
    /// programmer error and traps.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(uniqueKeysWithValues: elements))
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text.
    public var description: String { encodedString() }
}

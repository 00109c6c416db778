/// A position in a YAML text, 1-based, as shown to users (`config.yaml:12:13`).
public struct YAMLMark: Sendable, Equatable, Hashable, Comparable {
    /// The line, starting at 1.
    public let line: Int
    /// The column, starting at 1 (counted in characters by libyaml).
    public let column: Int

    /// Creates a mark at `line` and `column` (both 1-based).
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// Orders marks by line, then column.
    public static func < (lhs: YAMLMark, rhs: YAMLMark) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}

/// How a scalar was written: plain (`5`, `true`, `~`) or quoted/block (`"5"`, `|`).
///
/// Only plain scalars can be null; every other interpretation (numbers, booleans) is
/// decided by the reader that expects a type, from the scalar's text.
public enum YAMLScalarStyle: Sendable, Equatable, Hashable {
    /// Written without quotes.
    case plain
    /// Single- or double-quoted, literal (`|`) or folded (`>`).
    case quoted
}

/// One node of a YAML document, with the mark where it starts.
///
/// Built by ``YAMLDocument/parse(_:)`` from libyaml's document API; aliases are
/// expanded (a node referenced twice appears twice).
public struct YAMLNode: Sendable, Equatable {
    /// A key and its value in a mapping, in document order.
    public struct Pair: Sendable, Equatable {
        /// The key node (a scalar in every configuration we accept).
        public let key: YAMLNode
        /// The value node.
        public let value: YAMLNode

        /// Creates a pair.
        public init(key: YAMLNode, value: YAMLNode) {
            self.key = key
            self.value = value
        }
    }

    /// What the node holds.
    public enum Content: Sendable, Equatable {
        /// A scalar's text and how it was written.
        case scalar(String, YAMLScalarStyle)
        /// A sequence's items in order.
        case sequence([YAMLNode])
        /// A mapping's pairs in document order (duplicates kept, for the reader to report).
        case mapping([Pair])
    }

    /// What the node holds.
    public let content: Content
    /// Where the node starts.
    public let mark: YAMLMark

    /// Creates a node.
    public init(_ content: Content, mark: YAMLMark) {
        self.content = content
        self.mark = mark
    }

    /// Whether this is a null scalar: plain `~`, `null` (any case) or an empty plain value.
    public var isNull: Bool {
        guard case .scalar(let text, .plain) = content else { return false }
        return text.isEmpty || text == "~" || text.lowercased() == "null"
    }

    /// A short name of the node's kind for messages: "a mapping", "a sequence", …
    public var kindDescription: String {
        switch content {
        case .mapping: "a mapping"
        case .sequence: "a sequence"
        case .scalar: isNull ? "null" : "a scalar"
        }
    }
}

internal import CYAML

/// Why a text is not a YAML document we can read: libyaml's problem, or a limit of ours.
public struct YAMLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in libyaml's words where libyaml found it.
    public let problem: String
    /// Where it went wrong, when known.
    public let mark: YAMLMark?

    /// Creates an error.
    public init(problem: String, mark: YAMLMark?) {
        self.problem = problem
        self.mark = mark
    }

    /// `problem (line:column)`.
    public var description: String {
        guard let mark else { return problem }
        return "\(problem) (\(mark.line):\(mark.column))"
    }
}

/// Reads YAML text into a ``YAMLNode`` tree with libyaml's parser and document API
/// (`yaml_parser_load`). No YAML is parsed by hand here.
public enum YAMLDocument {
    /// The deepest nesting accepted (a configuration needs about five levels).
    public static let maximumDepth = 64
    /// The most nodes accepted after alias expansion (guards against alias bombs).
    public static let maximumNodeCount = 100_000

    /// Parses `bytes` (UTF-8, UTF-16 with a BOM) and returns the root node of its only
    /// document, or `nil` when the stream holds no document (an empty or comment-only text).
    ///
    /// Throws libyaml's error with its mark, a "more than one document" error, or a limit
    /// error (nesting too deep, recursive alias, too many nodes). The limits on nesting
    /// and on nodes as written are checked on libyaml's event stream before the document
    /// is built, so the time taken is linear in the size of `bytes` (see ``YAMLShapeCheck``).
    public static func parse(_ bytes: [UInt8]) throws(YAMLError) -> YAMLNode? {
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        let document = UnsafeMutablePointer<yaml_document_t>.allocate(capacity: 1)
        defer {
            parser.deallocate()
            document.deallocate()
        }
        guard yaml_parser_initialize(parser) != 0 else {
            throw YAMLError(problem: "libyaml could not initialise its parser (out of memory)", mark: nil)
        }
        defer { yaml_parser_delete(parser) }

        let result: Result<YAMLNode?, YAMLError> = bytes.withUnsafeBufferPointer { buffer in
            if let problem = YAMLShapeCheck.problem(in: buffer, parserError: { parserError($0, buffer) }) {
                return .failure(problem)
            }
            yaml_parser_set_input_string(parser, buffer.baseAddress, buffer.count)
            let first: YAMLNode?
            switch loadDocument(parser, document, buffer) {
            case .failure(let error): return .failure(error)
            case .success(nil): return .success(nil)
            case .success(.some(let root)): first = root
            }
            // A second document (`---` again) is a mistake in a configuration file.
            switch loadDocument(parser, document, buffer) {
            case .failure(let error): return .failure(error)
            case .success(nil): return .success(first)
            case .success(.some(let second)):
                return .failure(
                    YAMLError(problem: "more than one YAML document in the file", mark: second.mark))
            }
        }
        return try result.get()
    }

    /// Parses UTF-8 `text`; see ``parse(_:)-([UInt8])``.
    public static func parse(_ text: String) throws(YAMLError) -> YAMLNode? {
        try parse(Array(text.utf8))
    }

    /// Loads the next document; `.success(nil)` at the end of the stream.
    private static func loadDocument(
        _ parser: UnsafeMutablePointer<yaml_parser_t>, _ document: UnsafeMutablePointer<yaml_document_t>,
        _ bytes: UnsafeBufferPointer<UInt8>
    ) -> Result<YAMLNode?, YAMLError> {
        guard yaml_parser_load(parser, document) != 0 else {
            return .failure(parserError(parser, bytes))
        }
        defer { yaml_document_delete(document) }
        guard yaml_document_get_root_node(document) != nil else { return .success(nil) }
        var builder = TreeBuilder(document: document)
        do throws(YAMLError) {
            return .success(try builder.node(at: 1, depth: 0))
        } catch {
            return .failure(error)
        }
    }

    /// libyaml's problem and mark, with its context ("while parsing a block mapping").
    private static func parserError(
        _ parser: UnsafeMutablePointer<yaml_parser_t>, _ bytes: UnsafeBufferPointer<UInt8>
    ) -> YAMLError {
        let state = parser.pointee
        var problem = state.problem.map { String(cString: $0) } ?? "libyaml reported an error"
        if let context = state.context {
            let start = state.context_mark
            problem += " \(String(cString: context)) that started at line \(start.line + 1), column \(start.column + 1)"
        }
        let mark: YAMLMark
        if state.error == YAML_READER_ERROR {
            // Reader errors (bad encoding) carry a byte offset rather than a mark.
            mark = Self.mark(ofOffset: Int(state.problem_offset), in: bytes)
        } else {
            mark = YAMLMark(line: Int(state.problem_mark.line) + 1, column: Int(state.problem_mark.column) + 1)
        }
        return YAMLError(problem: problem, mark: mark)
    }

    /// The line and column of byte `offset`, counting UTF-8 lead bytes as characters.
    static func mark(ofOffset offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> YAMLMark {
        var line = 1
        var column = 1
        for byte in bytes.prefix(max(0, offset)) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return YAMLMark(line: line, column: column)
    }
}

/// Copies libyaml's node table into Swift values, expanding aliases with limits.
private struct TreeBuilder {
    let document: UnsafeMutablePointer<yaml_document_t>
    var visited = 0
    var inProgress: Set<Int32> = []

    init(document: UnsafeMutablePointer<yaml_document_t>) {
        self.document = document
    }

    mutating func node(at index: Int32, depth: Int) throws(YAMLError) -> YAMLNode {
        guard let node = yaml_document_get_node(document, index) else {
            throw YAMLError(problem: "libyaml returned a dangling node reference", mark: nil)
        }
        let pointee = node.pointee
        let mark = YAMLMark(line: Int(pointee.start_mark.line) + 1, column: Int(pointee.start_mark.column) + 1)
        visited += 1
        guard visited <= YAMLDocument.maximumNodeCount else {
            throw YAMLError(
                problem: "more than \(YAMLDocument.maximumNodeCount) nodes after expanding aliases", mark: mark)
        }
        guard depth < YAMLDocument.maximumDepth else {
            throw YAMLError(problem: "nesting deeper than \(YAMLDocument.maximumDepth) levels", mark: mark)
        }
        switch pointee.type {
        case YAML_SCALAR_NODE:
            let scalar = pointee.data.scalar
            let text: String
            if let value = scalar.value {
                text = String(decoding: UnsafeBufferPointer(start: value, count: scalar.length), as: UTF8.self)
            } else {
                text = ""
            }
            let style: YAMLScalarStyle = scalar.style == YAML_PLAIN_SCALAR_STYLE ? .plain : .quoted
            return YAMLNode(.scalar(text, style), mark: mark)
        case YAML_SEQUENCE_NODE:
            try enter(index, mark: mark)
            defer { inProgress.remove(index) }
            var items: [YAMLNode] = []
            var cursor = pointee.data.sequence.items.start
            while let item = cursor, item != pointee.data.sequence.items.top {
                items.append(try self.node(at: item.pointee, depth: depth + 1))
                cursor = item + 1
            }
            return YAMLNode(.sequence(items), mark: mark)
        case YAML_MAPPING_NODE:
            try enter(index, mark: mark)
            defer { inProgress.remove(index) }
            var pairs: [YAMLNode.Pair] = []
            var cursor = pointee.data.mapping.pairs.start
            while let pair = cursor, pair != pointee.data.mapping.pairs.top {
                let key = try self.node(at: pair.pointee.key, depth: depth + 1)
                let value = try self.node(at: pair.pointee.value, depth: depth + 1)
                pairs.append(YAMLNode.Pair(key: key, value: value))
                cursor = pair + 1
            }
            return YAMLNode(.mapping(pairs), mark: mark)
        default:
            throw YAMLError(problem: "libyaml returned an empty node", mark: mark)
        }
    }

    /// Refuses a collection that contains itself through an alias (`&a [*a]`).
    private mutating func enter(_ index: Int32, mark: YAMLMark) throws(YAMLError) {
        guard inProgress.insert(index).inserted else {
            throw YAMLError(problem: "recursive alias (a node that contains itself)", mark: mark)
        }
    }
}

internal import CYAML

/// A first pass over libyaml's event stream that refuses a text nested deeper than
/// ``YAMLDocument/maximumDepth`` or holding more than ``YAMLDocument/maximumNodeCount``
/// nodes, before libyaml's document API builds anything.
///
/// libyaml's scanner checks every pending simple key on every token, so a text of
/// thousands of nested `[` costs time quadratic in the nesting, and its document API
/// holds every node at once. Counting on the event stream and stopping at the limit
/// keeps the whole load linear in the text's size and bounded in memory.
enum YAMLShapeCheck {
    /// Returns `nil` when the text is within the limits (or reaches the end of its stream),
    /// the limit error at the first collection too deep or node too many, or libyaml's
    /// own error when the text is not YAML.
    static func problem(
        in bytes: UnsafeBufferPointer<UInt8>, parserError: (UnsafeMutablePointer<yaml_parser_t>) -> YAMLError
    ) -> YAMLError? {
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        let event = UnsafeMutablePointer<yaml_event_t>.allocate(capacity: 1)
        defer {
            parser.deallocate()
            event.deallocate()
        }
        guard yaml_parser_initialize(parser) != 0 else {
            return YAMLError(problem: "libyaml could not initialise its parser (out of memory)", mark: nil)
        }
        defer { yaml_parser_delete(parser) }
        yaml_parser_set_input_string(parser, bytes.baseAddress, bytes.count)
        var depth = 0
        var nodes = 0
        while true {
            guard yaml_parser_parse(parser, event) != 0 else { return parserError(parser) }
            let type = event.pointee.type
            let start = event.pointee.start_mark
            yaml_event_delete(event)
            let mark = YAMLMark(line: Int(start.line) + 1, column: Int(start.column) + 1)
            switch type {
            case YAML_STREAM_END_EVENT:
                return nil
            case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                depth += 1
                nodes += 1
                guard depth <= YAMLDocument.maximumDepth else {
                    return YAMLError(problem: "nesting deeper than \(YAMLDocument.maximumDepth) levels", mark: mark)
                }
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                depth -= 1
            case YAML_SCALAR_EVENT, YAML_ALIAS_EVENT:
                nodes += 1
            default:
                break
            }
            guard nodes <= YAMLDocument.maximumNodeCount else {
                return YAMLError(problem: "more than \(YAMLDocument.maximumNodeCount) nodes", mark: mark)
            }
        }
    }
}

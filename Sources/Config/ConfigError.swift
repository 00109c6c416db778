/// One problem in a configuration: the key path, what is wrong, and where.
///
/// Its description reads `boards[1].family: unknown family "foo", expected one of …
/// (config.yaml:12:13)`. Messages never contain a secret's value.
public struct ConfigError: Error, Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The key path (`mqtt.tls.ca_file`, `boards[1].family`; indices start at 0), or
    /// empty for a problem with the whole file.
    public let path: String
    /// What is wrong.
    public let message: String
    /// The configuration file's name as given to the loader.
    public let file: String
    /// Where in the file, when known.
    public let mark: YAMLMark?

    /// Creates an error.
    public init(path: String, message: String, file: String, mark: YAMLMark?) {
        self.path = path
        self.message = message
        self.file = file
        self.mark = mark
    }

    /// `path: message (file:line:column)`; without a path, `message (file:line:column)`;
    /// without a mark, `(file)`.
    public var description: String {
        let location = mark.map { "\(file):\($0.line):\($0.column)" } ?? file
        let prefix = path.isEmpty ? "" : "\(path): "
        return "\(prefix)\(message) (\(location))"
    }
}

/// Every problem found in a configuration (never empty when thrown), in file order.
public struct ConfigErrors: Error, Sendable, Equatable, CustomStringConvertible {
    /// The problems, sorted by line and column; file-level problems first.
    public let errors: [ConfigError]

    /// Collects `errors`, sorting them by position (stable for equal positions).
    public init(_ errors: [ConfigError]) {
        self.errors = errors.enumerated()
            .sorted { lhs, rhs in
                switch (lhs.element.mark, rhs.element.mark) {
                case (nil, nil): return lhs.offset < rhs.offset
                case (nil, _): return true
                case (_, nil): return false
                case (let left?, let right?):
                    return left == right ? lhs.offset < rhs.offset : left < right
                }
            }
            .map(\.element)
    }

    /// One error per line.
    public var description: String {
        errors.map(\.description).joined(separator: "\n")
    }
}

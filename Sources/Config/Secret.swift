/// A secret value (a password, a developer key) that never shows itself.
///
/// `description`, `debugDescription` and its mirror say `<redacted>`, so neither
/// string interpolation, `dump`, nor a log line of an enclosing value can leak it.
/// Read the value with ``reveal()`` only where it is handed to a library.
public struct Secret: Sendable, Equatable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// Where a secret was read from (never the value itself).
    public enum Source: Sendable, Equatable, Hashable {
        /// Written in the configuration file.
        case inline
        /// Read from a file (its path).
        case file(String)
        /// Read from an environment variable (its name).
        case environment(String)
    }

    /// The text shown in place of a secret.
    public static let redacted = "<redacted>"

    private let value: String
    /// Where the value came from.
    public let source: Source

    /// Wraps `value`, read from `source`.
    public init(_ value: String, source: Source = .inline) {
        self.value = value
        self.source = source
    }

    /// The secret itself. Call only where it is handed to the library that needs it.
    public func reveal() -> String { value }

    /// `<redacted>`.
    public var description: String { Self.redacted }

    /// `<redacted>`.
    public var debugDescription: String { Self.redacted }

    /// A mirror without children, so `dump` and reflection show nothing.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

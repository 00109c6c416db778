/// A broker password, held as a value that never shows itself.
///
/// `description`, `debugDescription`, `dump` and reflection all print `<redacted>`, so a
/// configuration that contains a password can be logged or interpolated without leaking
/// it. The configuration layer resolves where the password comes from (file, environment);
/// this type only carries it to `mosquitto_username_pw_set`.
public struct MQTTPassword: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The password itself. Read it only to hand it to the broker.
    public let revealed: String

    /// Wraps a password.
    public init(_ password: String) { revealed = password }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }

    /// Always `<redacted>`.
    public var debugDescription: String { "<redacted>" }

    /// A mirror with no children, so `dump` shows nothing secret.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// Why a command was refused (answered on the board's response topic).
public struct CommandFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The message.
    public var description: String

    /// A failure saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}

/// Why a pairings file was refused: where (1-based line and column of the file; `0` when
/// the whole file is meant) and what.
public struct PairingsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The line, 1-based (`0`: the file as a whole).
    public var line: Int
    /// The column, 1-based (`0`: the line as a whole).
    public var column: Int
    /// What is wrong, in a sentence without a final period.
    public var message: String

    /// An error at `line`:`column`.
    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    /// `line:column: message`, as compilers print it.
    public var description: String { "\(line):\(column): \(message)" }
}

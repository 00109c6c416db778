/// How the bridge picks its board among the devices a Bluetooth adapter sees: any board of
/// the wanted family, the board with a given address, or a board whose advertised name
/// matches a pattern.
///
/// The configuration (`boards[].address`, `boards[].name_pattern`) produces it; the BlueZ
/// transport decides with it which discovered device is its board (and checks the family
/// there, where advertised names and services are known).
public enum BoardMatch: Sendable, Hashable, CustomStringConvertible {
    /// The first board of the wanted family that shows up.
    case any
    /// The board with this Bluetooth address (`AA:BB:CC:DD:EE:FF`, compared in any case).
    case address(String)
    /// A board whose advertised name matches this pattern (case-insensitive).
    case namePattern(GlobPattern)

    /// `any`, `address AA:BB:CC:DD:EE:FF` or `name_pattern "Chessnut*"`.
    public var description: String {
        switch self {
        case .any: "any"
        case .address(let address): "address \(address.uppercased())"
        case .namePattern(let pattern): "name_pattern \"\(pattern)\""
        }
    }

    /// Whether `address` is this match's address, ignoring case; `false` unless the match
    /// is ``address(_:)``.
    public func matches(address: String) -> Bool {
        guard case .address(let wanted) = self else { return false }
        return wanted.uppercased() == address.uppercased()
    }

    /// Whether `name` matches this match's pattern, ignoring case; `false` unless the
    /// match is ``namePattern(_:)`` and a name is known.
    public func matches(advertisedName name: String?) -> Bool {
        guard case .namePattern(let pattern) = self, let name else { return false }
        return pattern.matches(name)
    }
}

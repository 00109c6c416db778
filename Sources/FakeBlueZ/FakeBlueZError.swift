public import DBus

/// What the simulator refuses: bad configuration, unknown boards, illegal moves. Each case
/// names the offending input. Over the control interface each becomes a D-Bus error named
/// `org.boardbridge.Simulator.Error.<Kind>` (see ``dbusError``).
public enum FakeBlueZError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No board has this id, address, name or path.
    case noSuchBoard(String)
    /// No adapter has this name (`hci0`) or path.
    case noSuchAdapter(String)
    /// Several boards share this name; use the id or address.
    case ambiguousBoard(String)
    /// A board with this id or address exists already.
    case duplicateBoard(String)
    /// An adapter with this name exists already.
    case duplicateAdapter(String)
    /// A configuration value is invalid: the key and the value.
    case invalidValue(key: String, value: String)
    /// A board or adapter specification (`key=value,…`) or configuration file is malformed.
    case invalidConfiguration(String)
    /// Not a square name (`e4`).
    case invalidSquare(String)
    /// Not a FEN piece letter (`P`, `n`, …).
    case invalidPiece(String)
    /// A scripted move is not legal in the tracked position: the move and its index (0-based).
    case illegalMove(String, index: Int)
    /// The board is already playing a script or autoplaying.
    case busy(String)
    /// Another connection owns `org.bluez` on this bus.
    case nameTaken(String)
    /// The bus refused or failed something.
    case bus(DBusError)

    /// The D-Bus error name prefix of the control interface.
    public static let errorPrefix = "org.boardbridge.Simulator.Error."

    /// A readable message.
    public var description: String {
        switch self {
        case .noSuchBoard(let board): "no board '\(board)'"
        case .noSuchAdapter(let adapter): "no adapter '\(adapter)'"
        case .ambiguousBoard(let name): "several boards are called '\(name)'; use the id or address"
        case .duplicateBoard(let board): "a board '\(board)' exists already"
        case .duplicateAdapter(let adapter): "an adapter '\(adapter)' exists already"
        case .invalidValue(let key, let value): "invalid value '\(value)' for '\(key)'"
        case .invalidConfiguration(let message): "invalid configuration: \(message)"
        case .invalidSquare(let square): "'\(square)' is not a square"
        case .invalidPiece(let piece): "'\(piece)' is not a FEN piece letter"
        case .illegalMove(let move, let index): "move \(index + 1) '\(move)' is not legal"
        case .busy(let board): "board '\(board)' is busy playing"
        case .nameTaken(let name): "\(name) is owned by another connection"
        case .bus(let error): "D-Bus: \(error)"
        }
    }

    /// The error as the control interface sends it.
    public var dbusError: DBusError {
        let kind: String
        switch self {
        case .noSuchBoard: kind = "NoSuchBoard"
        case .noSuchAdapter: kind = "NoSuchAdapter"
        case .ambiguousBoard: kind = "AmbiguousBoard"
        case .duplicateBoard, .duplicateAdapter: kind = "AlreadyExists"
        case .invalidValue, .invalidConfiguration, .invalidSquare, .invalidPiece: kind = "InvalidArguments"
        case .illegalMove: kind = "IllegalMove"
        case .busy: kind = "Busy"
        case .nameTaken: kind = "NameTaken"
        case .bus(let error): return error
        }
        return DBusError(name: Self.errorPrefix + kind, message: description)
    }
}

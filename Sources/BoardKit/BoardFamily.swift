/// The board families BoardBridge speaks to.
public enum BoardFamily: String, CaseIterable, Hashable, Sendable, Codable {
    /// Chessnut Air, Air+, Pro, Go, Move, Evo.
    case chessnut
    /// ChessUp (gen-1) and ChessUp 2 by Bryght Labs.
    case chessUp = "chessup"
    /// Square Off Pro, Grand Kingdom, Neo.
    case squareOff = "squareoff"
    /// DGT Pegasus.
    case dgtPegasus = "pegasus"
    /// DGT e-Boards (USB, serial, Bluetooth Classic; Revelation II), the classic protocol.
    case dgt
    /// Millennium ChessLink, eONE, Exclusive, Supreme.
    case millennium

    /// The families reached over Bluetooth LE (every family but the DGT e-Board, which
    /// talks over a serial line or Bluetooth Classic).
    public static let bluetoothLE: [BoardFamily] = allCases.filter(\.isBluetoothLE)

    /// Whether boards of this family are Bluetooth LE peripherals.
    public var isBluetoothLE: Bool { self != .dgt }

    /// The manufacturer, for Home Assistant device blocks and published info.
    public var manufacturer: String {
        switch self {
        case .chessnut: "Chessnut"
        case .chessUp: "Bryght Labs"
        case .squareOff: "Square Off"
        case .dgtPegasus, .dgt: "DGT"
        case .millennium: "Millennium"
        }
    }

    /// A readable model-line name.
    public var displayName: String {
        switch self {
        case .chessnut: "Chessnut"
        case .chessUp: "ChessUp"
        case .squareOff: "Square Off"
        case .dgtPegasus: "DGT Pegasus"
        case .dgt: "DGT e-Board"
        case .millennium: "Millennium ChessLink"
        }
    }
}

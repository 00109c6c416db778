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
    /// Certabo boards: piece identity by an RFID tag in every piece, over USB serial.
    case certabo
    /// Tabutronic Sentio: occupancy, over USB serial (Certabo's protocol without tags).
    case sentio
    /// iChessOne: piece identity and RGB LEDs, over Bluetooth LE (the Nordic UART service).
    case iChessOne = "ichessone"
    /// Boards speaking the Chess Peripheral Protocol over Bluetooth LE (OPENCHESSBOARD and
    /// other DIY and small-maker boards made for the lichess app).
    case chessPeripheral = "cpp"

    /// The families reached over Bluetooth LE (every family but the serial ones).
    public static let bluetoothLE: [BoardFamily] = allCases.filter(\.isBluetoothLE)

    /// Whether boards of this family are Bluetooth LE peripherals.
    public var isBluetoothLE: Bool { !connectsOverSerialLine }

    /// Whether boards of this family talk over a serial line (USB or RS232; a Bluetooth DGT
    /// e-Board over RFCOMM too): the DGT e-Board, Certabo and Sentio.
    public var connectsOverSerialLine: Bool {
        switch self {
        case .dgt, .certabo, .sentio: true
        case .chessnut, .chessUp, .squareOff, .dgtPegasus, .millennium, .iChessOne, .chessPeripheral: false
        }
    }

    /// The manufacturer, for Home Assistant device blocks and published info.
    public var manufacturer: String {
        switch self {
        case .chessnut: "Chessnut"
        case .chessUp: "Bryght Labs"
        case .squareOff: "Square Off"
        case .dgtPegasus, .dgt: "DGT"
        case .millennium: "Millennium"
        case .certabo: "Certabo"
        case .sentio: "Tabutronic"
        case .iChessOne: "iChessOne"
        case .chessPeripheral: "Chess Peripheral Protocol"
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
        case .certabo: "Certabo"
        case .sentio: "Tabutronic Sentio"
        case .iChessOne: "iChessOne"
        case .chessPeripheral: "Chess Peripheral Protocol board"
        }
    }
}

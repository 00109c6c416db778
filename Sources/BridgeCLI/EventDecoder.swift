public import Adapters
public import BoardKit
import Bridge
import FoundationEssentials
public import JSON

/// `boardbridge decode`: feeds captured notifications (hex, as btmon shows them) to a
/// family's adapter, in order and statefully (frames split across notifications decode
/// as on the air), and renders each event as one JSON line.
public struct EventDecoder {
    private var adapter: any BoardAdapter
    private let family: BoardFamily

    /// A decoder for boards of `family`.
    public init(family: BoardFamily) throws(AdapterFactoryError) {
        adapter = try AdapterFactory.makeAdapter(for: family)
        self.family = family
    }

    /// The JSON lines for one notification given as hex (spaces and colons allowed), or
    /// an error line naming the bad input.
    /// A line starting with `:` is a Certabo or Sentio frame as the board sends it (text:
    /// the line's end is added); a Chess Peripheral Protocol line that is no hex is one
    /// command as text (`move e2e4`).
    public mutating func decode(hex line: String) -> [String] {
        if line.hasPrefix(":"), family.connectsOverSerialLine {
            return adapter.feed(bytes: Data((line + "\r\n").utf8)).map { Self.json($0).encodedString() }
        }
        let hex = HexBytes.parse(line, ignoring: " :\t-")
        if hex == nil, family == .chessPeripheral {
            return adapter.feed(bytes: Data(line.utf8)).map { Self.json($0).encodedString() }
        }
        guard let bytes = hex else {
            let error: JSONValue = ["error": .string("not hex: \(line)")]
            return [error.encodedString()]
        }
        guard !bytes.isEmpty else { return [] }
        return adapter.feed(bytes: Data(bytes)).map { Self.json($0).encodedString() }
    }

    /// One event as JSON: `{"event":"pieces","fen":"…"}`, `{"event":"raw","hex":"…"}`, ….
    public static func json(_ event: BoardEvent) -> JSONValue {
        switch event {
        case .connected: ["event": "connected"]
        case .ready: ["event": "ready"]
        case .handshakeFailed(let reason): ["event": "handshake_failed", "reason": .string(reason)]
        case .disconnected(let error): ["event": "disconnected", "error": JSONValue(error)]
        case .pieces(let snapshot): ["event": "pieces", "fen": .string(snapshot.fenPlacement)]
        case .gameState(let snapshot, let side, let fullmove):
            [
                "event": "game_state", "fen": .string(snapshot.fenPlacement),
                "side_to_move": .string(side == .white ? "white" : "black"), "fullmove": JSONValue(fullmove),
            ]
        case .occupancy(let map): ["event": "occupancy", "squares": .array(map.squares.map { .string($0.name) })]
        case .pieceLifted(let square): ["event": "lift", "square": .string(square.name)]
        case .piecePlaced(let square, let piece):
            ["event": "place", "square": .string(square.name), "piece": JSONValue(piece.map { String($0.fenLetter) })]
        case .moveReported(let move): ["event": "move", "uci": .string(move.uci)]
        case .promotionPicked(let kind): ["event": "promotion", "piece": .string(kind.rawValue)]
        case .battery(let percent, let charging):
            ["event": "battery", "percent": JSONValue(percent), "charging": JSONValue(charging)]
        case .button(let button): ["event": "button", "name": .string(button.name)]
        case .version(let version): ["event": "version", "version": .string(version)]
        case .serialNumber(let serial): ["event": "serial_number", "serial": .string(serial)]
        case .clock(let reading?):
            [
                "event": "clock", "left": JSONValue(reading.left), "right": JSONValue(reading.right),
                "running": JSONValue(reading.running?.rawValue),
            ]
        case .clock(nil): ["event": "clock", "attached": false]
        case .calibration(let progress): json(progress)
        case .positionConfirmed: ["event": "position_confirmed"]
        case .raw(let data):
            ["event": "raw", "hex": .string(HexBytes.string(data))]
        }
    }

    private static func json(_ progress: BoardCalibrationEvent) -> JSONValue {
        let squares = { (squares: [Square]) in JSONValue.array(squares.map { .string($0.name) }) }
        return switch progress {
        case .needed: ["event": "calibration", "state": "needed"]
        case .learned(let table): ["event": "calibration", "state": "learned", "pieces": JSONValue(table.count)]
        case .unsettled(let list): ["event": "calibration", "state": "unsettled", "squares": squares(list)]
        case .unknownPieces(let list): ["event": "calibration", "state": "unknown_pieces", "squares": squares(list)]
        }
    }
}

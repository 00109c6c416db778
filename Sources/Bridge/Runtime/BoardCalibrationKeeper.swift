import BoardKit
import Contract
import FoundationEssentials
import JSON
import Logging

/// A Certabo board's calibration as the bridge keeps it: the tags it learned
/// (``BoardKit/PieceCalibration``), kept in the state directory as `<id>.calibration.json`
/// (board ids have no `.`, so the name is no board's):
/// `{"board":"<id>","pieces":{"<10 hex digits>":"<FEN letter>",…}}`, and what was last said of
/// it. Each new link's adapter is made with the table read here; without one the board
/// calibrates itself from the start position, and the table it learns is kept here.
@MainActor
final class BoardCalibrationKeeper {
    /// The board.
    let board: String
    /// The table in use, `nil` until one is learned.
    private(set) var table: PieceCalibration?
    private let store: StateWriter?
    private let logger: Logger
    private var lastSaid: BoardCalibrationEvent?

    /// The file of `board` in `store`, read now (a damaged file is reported and the board
    /// calibrated afresh).
    init(board: String, store: StateWriter?, logger: Logger) {
        self.board = board
        self.store = store
        self.logger = logger
        table = read()
    }

    /// The state file's name.
    static func fileName(_ board: String) -> String { board + ".calibration" }

    /// Keeps `table` (durably: the next link, or the next run, names the pieces by it).
    func keep(_ table: PieceCalibration) {
        self.table = table
        var pieces = JSONObject()
        for (tag, piece) in table.pieces.sorted(by: { $0.key < $1.key }) {
            pieces[PieceCalibration.text(of: tag)] = .string(String(piece.fenLetter))
        }
        let json: JSONValue = .object(["board": .string(board), "pieces": .object(pieces)])
        store?.save(Data(json.encoded()), as: Self.fileName(board))
    }

    /// Takes where the board's calibration stands: keeps a learned table, logs, and returns
    /// the `calibration` event to publish — `nil` when the board said the same before (its
    /// adapter says it again now and then, so that a board left alone is not taken for a
    /// silent one).
    func take(_ progress: BoardCalibrationEvent) -> BoardEventPayload? {
        guard progress != lastSaid else { return nil }
        lastSaid = progress
        switch progress {
        case .needed:
            logger.notice("calibration: set the pieces up on the start position (spare queens on d3 and d6)")
            return .calibration(state: "needed")
        case .learned(let table):
            keep(table)
            logger.notice("calibration: pieces learned", [("tags", String(table.count))])
            return .calibration(state: "learned", pieces: table.count)
        case .unsettled(let squares):
            logger.warning(
                "calibration: squares not read steadily", [("squares", squares.map(\.name).joined(separator: " "))])
            return .calibration(state: "unsettled", squares: squares)
        case .unknownPieces(let squares) where squares.isEmpty:
            logger.notice("calibration: the unknown pieces are gone")
            return .calibration(state: "recognised")
        case .unknownPieces(let squares):
            logger.warning(
                "calibration: pieces never calibrated stand on the board: no position is reported",
                [("squares", squares.map(\.name).joined(separator: " "))])
            return .calibration(state: "unknown_pieces", squares: squares)
        }
    }

    /// Forgets the table: the next link calibrates afresh.
    func forget() {
        table = nil
        store?.store.remove(Self.fileName(board))
    }

    private func read() -> PieceCalibration? {
        guard let store else { return nil }
        do {
            guard let data = try store.store.read(Self.fileName(board)) else { return nil }
            if let json = try? JSONValue(parsing: Array(data), maximumDepth: 4), json["board"] == .string(board),
                case .object(let pieces)? = json["pieces"]
            {
                let text = pieces.compactMap { member in member.value.stringValue.map { "\(member.key) \($0)\n" } }
                    .joined()
                if let table = PieceCalibration(text: text), table.count == pieces.count, table.count > 0 {
                    return table
                }
            }
            logger.error("calibration file unreadable: the board calibrates afresh", [("file", Self.fileName(board))])
        } catch {
            logger.error("cannot read the calibration file", [("error", "\(error)")])
        }
        return nil
    }
}

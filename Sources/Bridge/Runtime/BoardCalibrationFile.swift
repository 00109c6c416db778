import BoardKit
import FoundationEssentials
import JSON
import Logging

/// The tags a Certabo board learned (``BoardKit/PieceCalibration``), kept in the state
/// directory as `<id>.calibration.json` (board ids have no `.`, so the name is no board's):
/// `{"board":"<id>","pieces":{"<10 hex digits>":"<FEN letter>",…}}`. Each new link's adapter
/// is made with the table read here; without one the board calibrates itself from the start
/// position, and the table it learns is kept here.
@MainActor
final class BoardCalibrationFile {
    /// The board.
    let board: String
    /// The table in use, `nil` until one is learned.
    private(set) var table: PieceCalibration?
    private let store: StateWriter?
    private let logger: Logger

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
        for line in table.text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            pieces[String(fields[0])] = .string(String(fields[1]))
        }
        let json: JSONValue = .object(["board": .string(board), "pieces": .object(pieces)])
        store?.save(Data(json.encoded()), as: Self.fileName(board))
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

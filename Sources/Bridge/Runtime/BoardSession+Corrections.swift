import Contract
import FoundationEssentials
import JSON
import Kernel
import Logging

/// The corrections this board's session made (``BoardCorrections``), kept in the state
/// directory (`<id>.corrections.json`: board ids have no `.`, so the name is no board's) and
/// retained on `<base>/<board>/corrections`, for the arbiter's audit log of a hall that was
/// not running when they were made.
extension BoardSession {
    /// Corrections recorded at once before the rate of ``correctionRate`` a second applies:
    /// a knocked piece that keeps reading as illegal moves costs a few entries, counted in
    /// the next one's `suppressed_before`.
    static let correctionBurst = 30
    /// Corrections recorded a second after the burst.
    static let correctionRate = 1.0

    /// The state file of `board`'s corrections.
    static func correctionsFile(_ board: String) -> String { board + ".corrections" }

    /// The corrections saved by an earlier run, or an empty list (a damaged file is
    /// reported and a new list started: its numbers then start again, with new times).
    static func restoreCorrections(_ board: String, from store: StateWriter?, logger: Logger) -> BoardCorrections {
        let empty = BoardCorrections(board: board)
        guard let store else { return empty }
        do {
            guard let data = try store.store.read(correctionsFile(board)) else { return empty }
            if let json = try? JSONValue(parsing: Array(data), maximumDepth: 10),
                let saved = BoardCorrections(json: json), saved.board == board
            {
                return saved
            }
            logger.error("corrections file unreadable: starting a new list", [("file", correctionsFile(board))])
        } catch {
            logger.error("cannot read the corrections file", [("error", "\(error)")])
        }
        return empty
    }

    /// Records a correction: `action`, the `keys` of `event`'s JSON as its detail, at `ply`
    /// of the game, from the game's position `fenBefore` to `fenAfter` (each the game's
    /// position and ply now when `nil`).
    func recordCorrection(
        _ action: String, from event: BoardEventPayload, keys: [String], ply: Int? = nil, fenBefore: String? = nil,
        fenAfter: String? = nil
    ) {
        let now = clock.now()
        guard case .answer(let suppressed) = correctionLimiter.admit(board.id, at: now) else { return }
        let json = event.json(timestamp: date(now))
        var detail = JSONObject(uniqueKeysWithValues: keys.compactMap { key in json[key].map { (key, $0) } })
        if suppressed > 0 { detail["suppressed_before"] = JSONValue(suppressed) }
        let tags = core.game.tags
        let fen = core.position.fen
        let entry = BoardCorrections.Entry(
            time: ISO8601Timestamp.string(from: date(now)), action: action, detail: .object(detail),
            ply: ply ?? core.game.moves.count, round: tags["Round"], white: tags["White"], black: tags["Black"],
            fenBefore: fenBefore ?? fen, fenAfter: fenAfter ?? fen)
        corrections.append(entry)
        store?.save(Data(corrections.json.encoded()), as: Self.correctionsFile(board.id))
        publisher.publish(builder.corrections(corrections))
    }

    /// Records a move won back after a gap (`recovered_move`), from the position before it.
    func recordRecovered(_ move: CommittedMove, payload: MovePayload) {
        let positions = core.game.positions
        let before = move.ply >= 1 && move.ply - 1 < positions.count ? positions[move.ply - 1].fen : nil
        recordCorrection(
            "recovered_move", from: .move(payload), keys: ["uci", "san", "ply"], ply: move.ply - 1, fenBefore: before,
            fenAfter: move.fen)
    }
}

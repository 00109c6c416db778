import FoundationEssentials

extension BroadcastRound {
    /// Reads a pairings JSON file:
    ///
    /// ```json
    /// {"round":"5","event":"Club open","site":"Hall 1","date":"2026.12.05","time_control":"5400+30",
    ///  "pairings":[{"board":1,"board_id":"board-01","game_id":null,
    ///    "white":{"name":"Doe, John","title":"GM","fide_id":1503014,"rating":2830,"federation":"ENG"},
    ///    "black":{"name":"Roe, Richard"}}]}
    /// ```
    ///
    /// `round` and every pairing's `board` (from 1), `white.name` and `black.name` are
    /// required. Errors name the key path (`pairings[2].white.name is missing`).
    public init(json text: String) throws(PairingsError) {
        do {
            let file = try JSONDecoder().decode(PairingsFile.self, from: Data(text.utf8))
            try self.init(
                round: file.round, event: file.event, site: file.site, date: file.date, timeControl: file.timeControl,
                pairings: try file.pairings.enumerated().map { index, pairing throws(PairingsError) in
                    guard pairing.board > 0 else {
                        throw PairingsError(line: 0, column: 0, message: "pairings[\(index)].board must be from 1")
                    }
                    return BroadcastPairing(
                        boardNumber: pairing.board, boardID: pairing.boardID, white: pairing.white.player,
                        black: pairing.black.player, round: file.round, gameID: pairing.gameID)
                })
        } catch let error as PairingsError {
            throw error
        } catch let error as DecodingError {
            throw PairingsError(line: 0, column: 0, message: Self.describe(error))
        } catch {
            throw PairingsError(line: 0, column: 0, message: "not a pairings file: \(error)")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += (text.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return text.isEmpty ? "the file" : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "not JSON: \(context.debugDescription)" : "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "not a pairings file"
        }
    }
}

/// The shape of a pairings JSON file (keys as the file spells them).
private struct PairingsFile: Decodable {
    struct Player: Decodable {
        var name: String
        var title: String?
        var fideID: Int?
        var rating: Int?
        var federation: String?

        enum CodingKeys: String, CodingKey {
            case name, title, rating, federation
            case fideID = "fide_id"
        }

        var player: BroadcastPlayer {
            BroadcastPlayer(name: name, title: title, fideID: fideID, rating: rating, federation: federation)
        }
    }

    struct Pairing: Decodable {
        var board: Int
        var boardID: String?
        var gameID: String?
        var white: Player
        var black: Player

        enum CodingKeys: String, CodingKey {
            case board, white, black
            case boardID = "board_id"
            case gameID = "game_id"
        }
    }

    var round: String
    var event: String?
    var site: String?
    var date: String?
    var timeControl: String?
    var pairings: [Pairing]

    enum CodingKeys: String, CodingKey {
        case round, event, site, date, pairings
        case timeControl = "time_control"
    }
}

public import BoardKit
public import FoundationEssentials

/// The Chess Peripheral Protocol (vovagorodok/chess_peripheral_protocol, README at
/// `a0a7d8c`; ArduinoBleChess; the Dart driver dkwach/chess_peripheral_driver): the app
/// (the *central*) and the board (the *peripheral*) exchange short lower-case text
/// commands, one UTF-8 command per BLE write or notification, without a terminator, at most
/// ``maximumMessageLength`` bytes (ArduinoBleChess's `MAX_STR_SIZE`).
///
/// A command is a word and, after one space, its argument: `begin <fen>`, `sync <fen>`,
/// `unsync <fen>`, `unsync_settable <fen>`, `state <fen>`, `move <uci>`, `promote <uci>`,
/// `end <reason>`, `check <square>`, `feature <name>`, `variant <name>`, `err <text>`, and
/// the bare `ok` and `nok`. A FEN from the board may carry `?` (unknown piece), `U`
/// (unknown white piece) or `u` (unknown black piece) where its sensors tell occupancy only;
/// only its first field (the placement) is read.
public enum ChessPeripheralWire {
    /// The service every board advertises.
    public static let serviceUUID = "f5351050-b2c9-11ec-a0c0-b3bc53b08d33"
    /// Central → board: the board's "rx" (BLE Write).
    public static let writeCharacteristicUUID = "f53513ca-b2c9-11ec-a0c1-639b8957db99"
    /// Board → central: the board's "tx" (Read, Notify).
    public static let notifyCharacteristicUUID = "f535147e-b2c9-11ec-a0c2-8bbd706ec4e6"
    /// The longest command either side sends (the characteristics' declared size).
    public static let maximumMessageLength = 100

    /// One command: its word and its argument (empty when it has none).
    public struct Message: Hashable, Sendable {
        /// The command word (`move`, `sync`, `ok`, …).
        public var command: String
        /// Everything after the first space.
        public var argument: String

        /// A command `command` with `argument`.
        public init(_ command: String, _ argument: String = "") {
            self.command = command
            self.argument = argument
        }

        /// The command as written: the word, then a space and the argument when it has one.
        public var text: String { argument.isEmpty ? command : command + " " + argument }

        /// The bytes of one write or notification.
        public var bytes: Data { Data(text.utf8.prefix(maximumMessageLength)) }
    }

    /// The messages in one write or notification: normally one; lines split on `\n` (and a
    /// trailing `\r` or NUL dropped) for boards that end or join commands that way. Bytes
    /// that are no UTF-8 text, are longer than ``maximumMessageLength`` or start with no
    /// lower-case command word are `nil`.
    public static func messages(in bytes: Data) -> [Message?] {
        bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).compactMap { line in
            var line = line[...]
            while let last = line.last, last == 0 || last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") {
                line = line.dropLast()
            }
            guard !line.isEmpty else { return Message?.none }
            return .some(message(line))
        }
    }

    /// One message, or `nil` when the bytes are not one.
    static func message(_ line: Data.SubSequence) -> Message? {
        guard line.count <= maximumMessageLength, let text = String(validating: line, as: UTF8.self) else {
            return nil
        }
        let word = text.prefix { $0 != " " }
        guard !word.isEmpty, word.allSatisfy({ ("a"..."z").contains($0) || $0 == "_" }) else { return nil }
        return Message(String(word), String(text.dropFirst(word.count).drop { $0 == " " }))
    }

    /// The squares a FEN's placement shows occupied (a known or unknown piece), or `nil`
    /// when its first field is no placement of eight ranks.
    public static func occupancy(fen: some StringProtocol) -> OccupancyMap? {
        var map = OccupancyMap()
        let isPlacement = FENPlacement.read(fen) { square, character in
            guard Piece(fenLetter: character) != nil || "uU?".contains(character) else { return false }
            map.insert(square)
            return true
        }
        return isPlacement ? map : nil
    }

    /// A placement for `occupancy` where a square shows `pieces`' piece when it has one and
    /// `?` otherwise: what a board that senses occupancy only knows.
    public static func placement(_ occupancy: OccupancyMap, knowing pieces: BoardSnapshot) -> String {
        FENPlacement.text { square in occupancy.contains(square) ? pieces[square]?.fenLetter ?? "?" : nil }
    }

    /// The central's answer to a move the board reported: `ok`, `nok`, or `promote <uci>`
    /// when the game took a promotion the report did not name.
    public static func verdict(reported: BoardMove, taken: BoardMove?) -> Message {
        guard let taken else { return Message("nok") }
        if taken.promotion != nil, reported.promotion != taken.promotion { return Message("promote", taken.uci) }
        return Message("ok")
    }

    /// The protocol's end reason for a game's termination: `checkmate`, `timeout`,
    /// `resign`, `draw` for every kind of draw, `undefined` for the rest (an adjudication).
    public static func endReason(termination: String) -> String {
        switch termination {
        case "checkmate": "checkmate"
        case "time_forfeit": "timeout"
        case "resignation": "resign"
        case "stalemate", "insufficient_material", "seventy_five_move_rule", "fivefold_repetition",
            "fifty_move_rule", "threefold_repetition", "agreement":
            "draw"
        default: "undefined"
        }
    }
}

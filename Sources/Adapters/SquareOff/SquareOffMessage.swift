import BoardKit

/// A board → host message of the Square Off protocol that the adapter understands.
enum SquareOffMessage: Hashable, Sendable {
    /// `0#e2u*` (Neo: bare `e2u`).
    case lifted(Square)
    /// `0#e2d*` (Neo: bare `e2d`).
    case placed(Square)
    /// `30#<64 × 0/1>*` (Neo: the bare 64-character string).
    case occupancy(OccupancyMap)
    /// `22#<value>*` (Pro) or `4#<value>*` (Neo).
    case battery(percent: Int)
    /// `14#GO*`: the new game was acknowledged.
    case newGameAcknowledged
    /// `1#XX:XX:XX:XX:XX:XX*`: the board's MAC address.
    case macAddress
    /// Bare `OK` (Neo motor-route acknowledgement).
    case motorAcknowledged

    /// The message a wrapped frame with `code` and `body` carries, or `nil` when this
    /// combination is not one the adapter knows.
    init?(code: Int, body: ArraySlice<UInt8>) {
        switch code {
        case SquareOffWire.pieceCode:
            guard let message = Self.pieceReport(body) else { return nil }
            self = message
        case SquareOffWire.occupancyCode:
            guard let map = SquareOffWire.occupancy(string: body) else { return nil }
            self = .occupancy(map)
        case SquareOffWire.batteryReplyCode, SquareOffWire.batteryRequestCode:
            guard let percent = SquareOffWire.batteryPercent(from: body) else { return nil }
            self = .battery(percent: percent)
        case SquareOffWire.newGameCode:
            guard Array(body) == Array("GO".utf8) else { return nil }
            self = .newGameAcknowledged
        case SquareOffWire.macCode:
            guard body.count == 17, body.allSatisfy(Self.isMACCharacter) else { return nil }
            self = .macAddress
        default:
            return nil
        }
    }

    /// `e2u` / `e2d` (either case), or `nil`.
    static func pieceReport(_ body: some Collection<UInt8>) -> SquareOffMessage? {
        let bytes = Array(body)
        guard bytes.count == 3, let square = SquareOffWire.square(name: bytes[0...1]) else { return nil }
        switch bytes[2] | 0x20 {
        case UInt8(ascii: "u"): return .lifted(square)
        case UInt8(ascii: "d"): return .placed(square)
        default: return nil
        }
    }

    private static func isMACCharacter(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ":") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }
}

public import BoardKit
public import FoundationEssentials

/// Text conventions of the Square Off "numbered" protocol (reference §3.3): ASCII frames
/// `<code>#<body>*`, square names `a1`…`h8`, and the 64-character occupancy string in
/// file-major order (a1, a2 … a8, b1 … h8). Shared by ``SquareOffAdapter`` and the
/// emulated board.
public enum SquareOffWire {
    /// The frame terminator `*`.
    public static let terminator = UInt8(ascii: "*")
    /// The code/body separator `#`.
    public static let separator = UInt8(ascii: "#")

    /// Code of piece up/down reports (`0#e2u*`, `0#e4d*`) and of the host's move command.
    public static let pieceCode = 0
    /// Code of the MAC-address query and reply (`1#*`).
    public static let macCode = 1
    /// Code of the battery request (`4#*`) and of the Neo's battery report (`4#3752.50*`).
    public static let batteryRequestCode = 4
    /// Code of the new-game command (`14#1*`) and its acknowledgement (`14#GO*`).
    public static let newGameCode = 14
    /// Code of the battery reply of Pro firmware (`22#<value>*`).
    public static let batteryReplyCode = 22
    /// Code of the two-square move command (`24#e2,e4*`).
    public static let moveCode = 24
    /// Code of the square-LED command (`25#e2e4*`, `25#*` = all off).
    public static let ledCode = 25
    /// Code of the status-LED command (`26#ISG*`).
    public static let statusLEDCode = 26
    /// Code of the game-end signal (`27#ck*`, `27#wt*`, `27#bl*`, `27#dw*`).
    public static let gameEndCode = 27
    /// Code of the occupancy request (`30#R*`) and reply (`30#` + 64 × `0`/`1` + `*`).
    public static let occupancyCode = 30

    /// The bytes of the frame `<code>#<body>*`.
    public static func frame(code: Int, body: String = "") -> Data {
        Data("\(code)#\(body)*".utf8)
    }

    /// The square a two-character name such as `e2` (either case) names, or `nil`.
    public static func square(name bytes: some Collection<UInt8>) -> Square? {
        let characters = Array(bytes)
        guard characters.count == 2 else { return nil }
        let file = Int(characters[0] | 0x20) - Int(UInt8(ascii: "a"))
        let rank = Int(characters[1]) - Int(UInt8(ascii: "1"))
        return Square(file: file, rank: rank)
    }

    /// The 64-character occupancy string of `map`, file-major (a1, a2 … a8, b1 … h8).
    public static func occupancyString(_ map: OccupancyMap) -> String {
        var characters: [UInt8] = []
        characters.reserveCapacity(64)
        for file in 0..<8 {
            for rank in 0..<8 {
                let occupied = Square(file: file, rank: rank).map(map.contains) ?? false
                characters.append(occupied ? UInt8(ascii: "1") : UInt8(ascii: "0"))
            }
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// The occupancy a 64-character file-major `0`/`1` string reports, or `nil`.
    public static func occupancy(string bytes: some Collection<UInt8>) -> OccupancyMap? {
        guard bytes.count == 64 else { return nil }
        var map = OccupancyMap()
        for (index, character) in bytes.enumerated() {
            switch character {
            case UInt8(ascii: "1"):
                if let square = Square(file: index / 8, rank: index % 8) { map.insert(square) }
            case UInt8(ascii: "0"):
                continue
            default:
                return nil
            }
        }
        return map
    }

    /// The Square Off Neo motor route for a move from `from` to `to` (reference §3.4):
    /// waypoints `x,y` (a1 = 0,0, h8 = 7,7) joined by `:` and ended by `|`. A straight or
    /// diagonal move goes directly; a knight move travels along square corners. The last
    /// point overshoots by 0.08 in the direction of travel on every axis that changes.
    ///
    /// The Neo takes routes on its own write characteristic (`f9664d70-…`), not on the Nordic
    /// UART one the adapter writes to, so ``SquareOffAdapter`` does not encode moves for the
    /// Neo; this helper is for a transport that can address that characteristic. Routes
    /// around pieces in the way are not planned.
    public static func neoMotorRoute(from: Square, to: Square) -> String {
        let fileStep = (to.file - from.file).signum()
        let rankStep = (to.rank - from.rank).signum()
        var points: [(Double, Double)] = [(Double(from.file), Double(from.rank))]
        let isKnightMove =
            (abs(to.file - from.file) == 1 && abs(to.rank - from.rank) == 2)
            || (abs(to.file - from.file) == 2 && abs(to.rank - from.rank) == 1)
        var approach = (Double(fileStep), Double(rankStep))
        if isKnightMove {
            let corner = (Double(from.file) + Double(fileStep) / 2, Double(from.rank) + Double(rankStep) / 2)
            let longFile = abs(to.file - from.file) == 2
            let turn =
                longFile
                ? (corner.0 + Double(fileStep), corner.1) : (corner.0, corner.1 + Double(rankStep))
            points += [corner, turn]
            approach = (Double(fileStep), Double(rankStep))
        }
        points.append((Double(to.file) + 0.08 * approach.0, Double(to.rank) + 0.08 * approach.1))
        return points.map { number($0.0) + "," + number($0.1) }.joined(separator: ":") + "|"
    }

    /// `3`, `5.5`, `4.92`: at most two decimals, no trailing zeros.
    private static func number(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let whole = hundredths / 100
        let fraction = abs(hundredths % 100)
        guard fraction != 0 else { return String(whole) }
        let digits = fraction % 10 == 0 ? String(fraction / 10) : (fraction < 10 ? "0" : "") + String(fraction)
        return (hundredths < 0 && whole == 0 ? "-" : "") + String(whole) + "." + digits
    }

    /// A battery level in percent from a reported number: values up to 100 are percent;
    /// 1000…5000 are read as cell millivolts (the Neo sends `3752.50`) and mapped linearly
    /// from 3300 mV (0 %) to 4200 mV (100 %) — an inference, the units are not documented.
    /// `nil` for anything else.
    public static func batteryPercent(from text: some Collection<UInt8>) -> Int? {
        guard let value = decimal(text) else { return nil }
        if value <= 100 { return Int(value.rounded()) }
        if (1000...5000).contains(value) {
            return min(100, max(0, Int(((value - 3300) / 9).rounded())))
        }
        return nil
    }

    /// A non-negative decimal number (`85`, `3752.50`) of at most 12 characters, or `nil`.
    static func decimal(_ text: some Collection<UInt8>) -> Double? {
        guard !text.isEmpty, text.count <= 12 else { return nil }
        var integer = 0.0
        var fraction = 0.0
        var scale = 1.0
        var seenPoint = false
        var digits = 0
        for character in text {
            if character == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
            } else if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(character) {
                let digit = Double(character - UInt8(ascii: "0"))
                digits += 1
                if seenPoint {
                    scale /= 10
                    fraction += digit * scale
                } else {
                    integer = integer * 10 + digit
                }
            } else {
                return nil
            }
        }
        return digits > 0 ? integer + fraction : nil
    }
}

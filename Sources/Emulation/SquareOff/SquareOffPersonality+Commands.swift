import Adapters
import BoardKit
public import FoundationEssentials

extension SquareOffPersonality {
    /// The most bytes of an unterminated command the firmware keeps.
    static let writeBufferLimit = 256

    /// The host wrote `bytes`: commands `<code>#<body>*`, possibly chunked over several writes
    /// and followed by `\r\n`.
    ///
    /// - `14#…*`: new game → `14#GO*` (Pro; the Neo does not answer).
    /// - `30#R*`: the occupancy (`30#…*`; the Neo sends its bare string). `30#<digits>*` is
    ///   accepted silently.
    /// - `25#e2e4*` / `25#*`: light squares / all off. `26#IS?*`: status LED. `27#xx*`: game end.
    /// - `4#*`: battery (`22#<percent>*`; Neo `4#<millivolts>*`). `1#*`: `1#<mac>*`. `!#*`: accepted.
    /// - `0#e2e4*` / `24#e2,e4*` (Pro only): the robot plays the move.
    ///
    /// Anything else, a body these codes do not accept, and more than 256 bytes without a
    /// terminator count as malformed commands.
    public mutating func handleWrite(_ bytes: Data, at time: TimeInterval) -> [Data] {
        var replies: [Data] = []
        for byte in bytes {
            writeBuffer.append(byte)
            if byte == SquareOffWire.terminator {
                let command = writeBuffer.dropLast().drop { $0 == 0x0D || $0 == 0x0A || $0 == 0x20 }
                writeBuffer.removeAll()
                if let answer = execute(Array(command)) {
                    replies += answer
                } else {
                    violations.malformedCommands += 1
                }
            } else if writeBuffer.count > Self.writeBufferLimit {
                writeBuffer.removeAll()
                violations.malformedCommands += 1
            }
        }
        return isLinkUp ? replies : []
    }

    /// The replies to one command (without its `*`), or `nil` when it is malformed.
    private mutating func execute(_ command: [UInt8]) -> [Data]? {
        guard let hash = command.firstIndex(of: SquareOffWire.separator) else { return nil }
        let head = String(decoding: command[..<hash], as: UTF8.self)
        let body = Array(command[(hash + 1)...])
        let text = String(decoding: body, as: UTF8.self)
        if head == "!" { return body.isEmpty ? [] : nil }
        guard !head.isEmpty, head.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let code = Int(head) else {
            return nil
        }
        switch code {
        case SquareOffWire.newGameCode:
            guard !body.isEmpty, body.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            newGameCount += 1
            return options.variant == .pro ? [SquareOffWire.frame(code: code, body: "GO")] : []
        case SquareOffWire.occupancyCode:
            if text == "R" {
                return [
                    options.variant == .neo
                        ? Data(occupancyString.utf8) : SquareOffWire.frame(code: code, body: occupancyString)
                ]
            }
            return !body.isEmpty && body.allSatisfy({ (0x30...0x39).contains($0) }) ? [] : nil
        case SquareOffWire.ledCode:
            guard body.count % 2 == 0 else { return nil }
            var squares: [Square] = []
            for start in stride(from: 0, to: body.count, by: 2) {
                guard let square = square(wireName: body[start...(start + 1)]) else { return nil }
                squares.append(square)
            }
            litSquares = squares
            return []
        case SquareOffWire.statusLEDCode:
            guard ["ISG", "ISR", "ISB"].contains(text) else { return nil }
            statusLED = text
            return []
        case SquareOffWire.gameEndCode:
            guard ["ck", "wt", "bl", "dw"].contains(text) else { return nil }
            gameEndSignal = text
            return []
        case SquareOffWire.batteryRequestCode:
            guard body.isEmpty else { return nil }
            let code = options.variant == .neo ? SquareOffWire.batteryRequestCode : SquareOffWire.batteryReplyCode
            return [batteryReport(code: code)]
        case SquareOffWire.macCode:
            guard body.isEmpty else { return nil }
            return [SquareOffWire.frame(code: code, body: options.macAddress)]
        case SquareOffWire.pieceCode:
            guard body.count == 4 || body.count == 5,
                let from = square(wireName: body[0...1]), let to = square(wireName: body[2...3])
            else { return nil }
            var promotion: PieceKind?
            if body.count == 5 {
                guard let kind = PieceKind(letter: Character(UnicodeScalar(body[4]))),
                    [.queen, .rook, .bishop, .knight].contains(kind)
                else { return nil }
                promotion = kind
            }
            return robotMove(BoardMove(from: from, to: to, promotion: promotion))
        case SquareOffWire.moveCode:
            guard body.count == 5, body[2] == UInt8(ascii: ","),
                let from = square(wireName: body[0...1]), let to = square(wireName: body[3...4])
            else { return nil }
            return robotMove(BoardMove(from: from, to: to))
        default:
            return nil
        }
    }

    /// Plays `move` with the robot (Pro only); `nil` when the Neo is asked or `from` is empty.
    private mutating func robotMove(_ move: BoardMove) -> [Data]? {
        guard options.variant == .pro, board[move.from] != nil, move.from != move.to else { return nil }
        var generator = FixedGenerator()
        let actions = HumanMoves.actions(for: move, on: board, style: .standard, using: &generator)
        var frames: [Data] = []
        for action in actions {
            switch action {
            case .lift(let square), .knockOver(let square): frames += self.move(lifting: square)
            case .place(let piece, let square): frames += self.move(placing: piece, on: square)
            case .setBattery, .pressButton: break
            }
        }
        executedMoves.append(move)
        return frames
    }
}

/// A generator for planners called with a fixed style, which never draw a number.
private struct FixedGenerator: RandomNumberGenerator {
    mutating func next() -> UInt64 { 0 }
}

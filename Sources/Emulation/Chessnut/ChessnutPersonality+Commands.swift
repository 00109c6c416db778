import Adapters
import BoardKit
public import FoundationEssentials

extension ChessnutPersonality {
    /// Executes every command in the write (a write may hold several) and answers like
    /// the firmware: acks on the response characteristic, state frames on the state one.
    public mutating func handleWrite(_ bytes: Data, at time: TimeInterval) -> [Data] {
        if let last = lastWriteTime, time - last < ChessnutAdapter.writeFloor - 1e-9 {
            violations.writesTooClose += 1
        }
        lastWriteTime = time
        let input = Array(bytes)
        var output: [Data] = []
        var index = 0
        while index < input.count {
            guard index + 2 <= input.count, index + 2 + Int(input[index + 1]) <= input.count else {
                violations.malformedCommands += 1
                break
            }
            let length = Int(input[index + 1])
            let payload = Array(input[(index + 2)..<(index + 2 + length)])
            if let replies = execute(type: input[index], payload: payload, at: time) {
                output += replies
            } else {
                violations.malformedCommands += 1
            }
            index += 2 + length
        }
        return output
    }

    /// The replies to one command, or `nil` when the firmware cannot parse it.
    private mutating func execute(type: UInt8, payload: [UInt8], at time: TimeInterval) -> [Data]? {
        let ack = notifications(ChessnutWire.ack)
        switch (type, payload.count) {
        case (0x21, 1):
            switch payload[0] {
            case 0x00:
                isStreaming = true
                return ack + send(stateFrame(at: time), at: time)
            case 0x01:
                isStreaming = false
                return ack
            default:
                return nil
            }
        case (0x0A, 8) where options.model == .classic:
            litSquares = [:]
            for square in ChessnutWire.squares(ledBytes: payload) {
                litSquares[isFlipped ? square.rotated : square] = .green
            }
            return ack
        case (0x43, 32) where options.model == .move:
            var lit: [Square: ChessnutAdapter.LEDColor] = [:]
            for square in Square.allCases {
                let code = ChessnutWire.nibble(of: square, in: payload)
                guard let color = ChessnutAdapter.LEDColor(rawValue: code) else { return nil }
                if color != .off { lit[isFlipped ? square.rotated : square] = color }
            }
            litSquares = lit
            return ack
        case (0x29, 1):
            let level = UInt8(physical.batteryPercent) | (physical.isCharging ? 0x80 : 0)
            return notifications([ChessnutWire.batteryType, 0x02, level, 0x00])
        case (0x0B, 4), (0x1B, 1):
            return ack
        case (0x27, 1), (0x2B, 1), (0x26, 1):
            return []  // version, name and time replies: their frame types are not documented
        case (0x31, 1):
            return notifications([ChessnutWire.storedCountType, 0x01, 0x00])
        case (0x41, 1) where options.model == .move:
            switch payload[0] {
            case 0x0C:
                let percent = UInt8(physical.batteryPercent)
                return notifications([ChessnutWire.moveQueryType, 0x03, 0x0C, physical.isCharging ? 1 : 0, percent])
            case 0x15:
                return notifications([ChessnutWire.moveQueryType, 0x05, 0x15, 0x00, 0x00, 0x00, 0x00])
            default:
                return []
            }
        case (0x42, 33) where options.model == .move:
            return autoMove(payload, at: time)
        default:
            return nil
        }
    }

    /// `42 21`: 32 target board bytes and the interference flag; all zero stops a move.
    private mutating func autoMove(_ payload: [UInt8], at time: TimeInterval) -> [Data]? {
        if payload.allSatisfy({ $0 == 0 }) { return [] }
        guard payload[32] <= 1, let target = ChessnutWire.snapshot(boardBytes: payload[0..<32]) else { return nil }
        physical.setPieces(isFlipped ? target.rotated : target)
        autoMovesExecuted += 1
        return isStreaming ? send(stateFrame(at: time), at: time) : []
    }
}

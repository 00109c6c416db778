import Adapters
import BoardKit
public import FoundationEssentials

extension DGTPersonality {
    /// The longest command the firmware buffers (a clock message).
    static let maximumCommandLength = 64

    /// How the firmware reads its byte stream.
    static let commandReader = LengthPrefixedCommands(
        lengthPrefixed: [DGTWire.led, DGTWire.clockMessage], maximumLength: maximumCommandLength)

    /// Executes the commands in the write; a multi-byte command may continue in the next
    /// write (the firmware reads a byte stream).
    public mutating func handleWrite(_ bytes: Data, at time: TimeInterval) -> [Data] {
        pendingCommand += bytes
        clock?.advance(to: time)
        let (commands, malformed) = Self.commandReader.take(from: &pendingCommand)
        if malformed { violations.malformedCommands += 1 }
        var output: [Data] = []
        for command in commands { output += execute(command, at: time) }
        return output
    }

    private mutating func execute(_ command: [UInt8], at time: TimeInterval) -> [Data] {
        switch command[0] {
        case DGTWire.reset:
            mode = .idle
            return []
        case DGTWire.requestClock:
            return clockMessage()
        case DGTWire.requestBoard:
            let wire = isFlipped ? physical.pieces.rotated : physical.pieces
            return [Data(DGTWire.message(DGTWire.boardDump, DGTWire.fields(wire)))]
        case DGTWire.requestUpdates:
            mode = .fieldsAndClockEverySecond
            lastClockSecond = time
            return []
        case DGTWire.requestBoardUpdates:
            mode = .fields
            return []
        case DGTWire.requestUpdatesNice:
            mode = .fieldsAndClockOnChange
            return []
        case DGTWire.requestSerial:
            return [Data(DGTWire.message(DGTWire.serialNumber, ascii(options.serialNumber, count: 5)))]
        case DGTWire.requestLongSerial:
            return [Data(DGTWire.message(DGTWire.longSerialNumber, ascii(options.serialNumber, count: 10)))]
        case DGTWire.requestTrademark:
            return [Data(DGTWire.message(DGTWire.trademark, Array("Digital Game Technology\n".utf8)))]
        case DGTWire.requestVersion:
            return [Data(DGTWire.message(DGTWire.version, Array(options.version.prefix(2))))]
        case DGTWire.requestBattery where options.model == .bluetooth:
            let payload: [UInt8] = [UInt8(physical.batteryPercent), 0, 0, 0, 0, 0, 0, 0, 0]
            return [Data(DGTWire.message(DGTWire.batteryStatus, payload))]
        case DGTWire.led where options.model == .revelationII:
            setLEDs(command)
            return []
        case DGTWire.clockMessage:
            // `2B <len> 03 <command> … 00`: the DGT 3000 takes it; its ack is not emulated.
            if command.count < 4 || command[2] != 0x03 || command.last != 0x00 { violations.malformedCommands += 1 }
            return []
        default:
            violations.malformedCommands += 1
            return []
        }
    }

    /// `60 04 <pattern> <start> <end> 00`: fields `start`…`end` on (1) or off (0).
    private mutating func setLEDs(_ command: [UInt8]) {
        guard command.count == 6, command[1] == 0x04, command[5] == 0x00, command[2] <= 1, command[3] <= command[4],
            command[4] < 64
        else {
            violations.malformedCommands += 1
            return
        }
        for field in command[3]...command[4] {
            guard let square = DGTWire.square(field: field) else { continue }
            let physicalSquare = isFlipped ? square.rotated : square
            if command[2] == 1 { litSquares.insert(physicalSquare) } else { litSquares.remove(physicalSquare) }
        }
    }

    /// `text` as `count` ASCII characters (padded with `0`).
    private func ascii(_ text: String, count: Int) -> [UInt8] {
        let characters = Array(text.utf8.prefix(count)).map { $0 & 0x7F }
        return characters + Array(repeating: 0x30, count: count - characters.count)
    }
}

import Adapters
import BoardKit
public import FoundationEssentials

extension MillenniumPersonality {
    /// Command lengths in characters, checksum included.
    static let commandLengths: [UInt8: Int] = [
        UInt8(ascii: "V"): 3, UInt8(ascii: "S"): 3, UInt8(ascii: "X"): 3, UInt8(ascii: "T"): 3,
        UInt8(ascii: "L"): 167, UInt8(ascii: "W"): 7, UInt8(ascii: "R"): 5,
    ]

    /// Reads commands from the byte stream and answers each complete one.
    public mutating func handleWrite(_ bytes: Data, at time: TimeInterval) -> [Data] {
        var output: [Data] = []
        for byte in bytes {
            let character = byte & 0x7F
            let startsCommand = pendingCommand.isEmpty && Self.commandLengths[character] != nil
            guard MillenniumWire.hasOddParity(byte), pendingCommand.isEmpty ? startsCommand : true else {
                // One violation per run of bytes the firmware cannot use.
                if !isSkipping { violations.malformedCommands += 1 }
                isSkipping = true
                pendingCommand = []
                continue
            }
            isSkipping = false
            pendingCommand.append(character)
            guard let length = Self.commandLengths[pendingCommand[0]], pendingCommand.count == length else { continue }
            let command = pendingCommand
            pendingCommand = []
            if let last = lastCommandTime, time - last < MillenniumAdapter.writeFloor - 1e-9 {
                violations.writesTooClose += 1
            }
            lastCommandTime = time
            output += execute(command, at: time)
        }
        return output
    }

    private mutating func execute(_ command: [UInt8], at time: TimeInterval) -> [Data] {
        let body = Array(command.dropLast(2))
        guard let high = MillenniumWire.hexValue(command[command.count - 2]),
            let low = MillenniumWire.hexValue(command[command.count - 1]),
            high << 4 | low == MillenniumWire.checksum(body)
        else {
            violations.malformedCommands += 1
            return []
        }
        let arguments = hexBytes(body.dropFirst())
        switch body[0] {
        case UInt8(ascii: "V"):
            return reply(
                Array("v".utf8) + MillenniumWire.hexDigits(options.version)
                    + MillenniumWire.hexDigits(options.versionMinor))
        case UInt8(ascii: "S"):
            return statusReport(at: time)
        case UInt8(ascii: "X"):
            ledPatterns = Array(repeating: 0, count: 81)
            return reply(Array("x".utf8))
        case UInt8(ascii: "T"):
            ledPatterns = Array(repeating: 0, count: 81)
            return []
        case UInt8(ascii: "L"):
            guard let arguments, arguments.count == 82 else { break }
            ledPatterns = Array(arguments.dropFirst())
            return reply(Array("l".utf8))
        case UInt8(ascii: "W"):
            guard let arguments, arguments.count == 2 else { break }
            e2rom[Int(arguments[0])] = arguments[1]
            return reply(
                Array("w".utf8) + MillenniumWire.hexDigits(arguments[0]) + MillenniumWire.hexDigits(arguments[1]))
        case UInt8(ascii: "R"):
            guard let arguments, arguments.count == 1 else { break }
            let value = e2rom[Int(arguments[0])]
            return reply(Array("r".utf8) + MillenniumWire.hexDigits(arguments[0]) + MillenniumWire.hexDigits(value))
        default:
            break
        }
        violations.malformedCommands += 1
        return []
    }

    /// Pairs of hex digits as bytes, or `nil` on a non-hex character or an odd count.
    private func hexBytes(_ characters: ArraySlice<UInt8>) -> [UInt8]? {
        guard characters.count.isMultiple(of: 2) else { return nil }
        var result: [UInt8] = []
        var index = characters.startIndex
        while index < characters.endIndex {
            guard let high = MillenniumWire.hexValue(characters[index]),
                let low = MillenniumWire.hexValue(characters[index + 1])
            else { return nil }
            result.append(high << 4 | low)
            index += 2
        }
        return result
    }
}

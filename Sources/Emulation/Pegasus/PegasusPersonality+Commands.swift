import Adapters
import BoardKit
public import FoundationEssentials

extension PegasusPersonality {
    /// The longest command the firmware buffers (an LED command for every square).
    static let maximumCommandLength = 80

    /// How the firmware reads its byte stream.
    static let commandReader = LengthPrefixedCommands(
        lengthPrefixed: [PegasusWire.led, PegasusWire.unlock], maximumLength: maximumCommandLength)

    /// Executes the commands in the write; a multi-byte command may continue in the next
    /// write (the firmware reads a byte stream).
    public mutating func handleWrite(_ bytes: Data, at time: TimeInterval) -> [Data] {
        pendingCommand += bytes
        let (commands, malformed) = Self.commandReader.take(from: &pendingCommand)
        if malformed { violations.malformedCommands += 1 }
        var output: [Data] = []
        for command in commands { output += execute(command) }
        return output
    }

    private mutating func execute(_ command: [UInt8]) -> [Data] {
        let gated: Set<UInt8> = [
            PegasusWire.requestBoard, PegasusWire.requestUpdates, PegasusWire.requestBattery, PegasusWire.led,
        ]
        if !isUnlocked, gated.contains(command[0]) {
            violations.commandsBeforeUnlock += 1
            if command[0] == PegasusWire.requestBoard {
                let locked = [UInt8](repeating: PegasusWire.lockedSquare, count: 64)
                return send(PegasusWire.message(PegasusWire.boardDump, locked))
            }
            return []
        }
        switch command[0] {
        case PegasusWire.reset:
            sendsUpdates = false
            return []
        case PegasusWire.requestBoard:
            let wire = isFlipped ? physical.pieces.rotated : physical.pieces
            let fields = (0..<64).map { field -> UInt8 in
                guard let square = PegasusWire.square(field: UInt8(field)) else { return 0 }
                return wire[square] == nil ? 0 : 1
            }
            return send(PegasusWire.message(PegasusWire.boardDump, fields))
        case PegasusWire.requestUpdates:
            sendsUpdates = true
            return []
        case PegasusWire.requestBattery:
            pushesBattery = true
            return batteryMessage()
        case PegasusWire.requestVersion:
            return send(PegasusWire.message(PegasusWire.version, [options.version.major, options.version.minor]))
        case PegasusWire.requestHardwareVersion:
            return send(PegasusWire.message(PegasusWire.hardwareVersion, [1, 0]))
        case PegasusWire.requestSerial:
            let digits = Array(options.serialNumber.utf8.prefix(5)).map { $0 & 0x7F }
            return send(
                PegasusWire.message(PegasusWire.serialNumber, digits + Array(repeating: 0x30, count: 5 - digits.count)))
        case PegasusWire.requestTrademark:
            return send(PegasusWire.message(PegasusWire.trademark, Array("Digital Game Technology\nPegasus\n".utf8)))
        case PegasusWire.requestKeyState:
            return send([PegasusWire.keyState, 0x00, 0x01, isUnlocked ? 1 : 0])
        case PegasusWire.unlock:
            let key = Data(command.dropFirst(2).prefix(6))
            guard command.count == 9, command[1] == 7, command[8] == 0 else {
                violations.malformedCommands += 1
                return []
            }
            if let accepted = options.acceptedDeveloperKeys, accepted.contains(key) { isUnlocked = true }
            return []
        case PegasusWire.led:
            setLEDs(command)
            return []
        case 0x41, 0x43, 0x4B:
            return []  // clock modes: guarded off on the Pegasus
        default:
            violations.malformedCommands += 1
            return []
        }
    }

    /// `60 02 00 00` (all off) or `60 <len> 05 <speed> <mode> <intensity> <fields…> 00`.
    private mutating func setLEDs(_ command: [UInt8]) {
        let body = command.dropFirst(2)
        if Array(body) == [0x00, 0x00] {
            litSquares = []
            return
        }
        guard body.count >= 5, body.first == 0x05, body.last == 0x00 else {
            violations.malformedCommands += 1
            return
        }
        var lit: Set<Square> = []
        for field in body.dropFirst(4).dropLast() {
            guard let square = PegasusWire.square(field: field) else {
                violations.malformedCommands += 1
                return
            }
            lit.insert(isFlipped ? square.rotated : square)
        }
        litSquares = lit
    }
}

public import BoardKit
public import FoundationEssentials

extension MillenniumAdapter {
    /// The start position in the documented order (A8 first).
    static let startStatus = MillenniumWire.statusCharacters(.startingPosition)
    /// The start position as a board used the other way round sends it.
    static let reversedStartStatus = Array(startStatus.reversed())

    /// Parses every complete reply; keeps an incomplete tail for the next call.
    public mutating func feed(bytes: Data) -> [BoardEvent] {
        guard !bytes.isEmpty else { return [] }
        let framer = self
        var events: [BoardEvent] = []
        for piece in scanner.scan(bytes, classify: { framer.classify($0, at: $1) }) {
            switch piece {
            case .garbage(let data): events.append(.raw(data))
            case .frame(let frame): handle(frame.map { $0 & 0x7F }, into: &events)
            }
        }
        return events
    }

    /// Decides whether a reply starts at `index`, checking each character as soon as it
    /// is there (a reply letter is never a valid body character, so a candidate started
    /// by garbage dies at the next real reply).
    func classify(_ bytes: [UInt8], at index: Int) -> FrameVerdict {
        let letter = bytes[index] & 0x7F
        guard let length = MillenniumWire.replyLength(letter) else { return .garbage }
        let available = min(bytes.count - index, length)
        var sum: UInt8 = 0
        for offset in 0..<available {
            let byte = bytes[index + offset]
            if checksParity, !MillenniumWire.hasOddParity(byte) { return .garbage }
            let character = byte & 0x7F
            if offset < length - 2 {
                if offset > 0, !Self.isBodyCharacter(character, letter: letter) { return .garbage }
                sum ^= character
            } else if MillenniumWire.hexValue(character) == nil {
                return .garbage
            }
        }
        guard available == length else { return .needMore }
        let high = MillenniumWire.hexValue(bytes[index + length - 2] & 0x7F) ?? 0
        let low = MillenniumWire.hexValue(bytes[index + length - 1] & 0x7F) ?? 0
        return high << 4 | low == sum ? .frame(length) : .garbage
    }

    @inline(__always)
    static func isBodyCharacter(_ character: UInt8, letter: UInt8) -> Bool {
        if letter == UInt8(ascii: "s") { return MillenniumWire.piece(forCharacter: character) != nil }
        return MillenniumWire.hexValue(character) != nil
    }

    private mutating func handle(_ characters: [UInt8], into events: inout [BoardEvent]) {
        switch characters[0] {
        case UInt8(ascii: "s"):
            let status = Array(characters[1..<65])
            var orientationChanged = false
            if orientation == .automatic {
                if status == Self.startStatus, reversed {
                    reversed = false
                    orientationChanged = true
                } else if status == Self.reversedStartStatus, !reversed {
                    reversed = true
                    orientationChanged = true
                }
            }
            if !isReady {
                isReady = true
                events.append(.ready)
            }
            guard status != lastStatus || orientationChanged else { return }
            lastStatus = status
            var snapshot = BoardSnapshot()
            for (index, character) in status.enumerated() {
                let square = MillenniumWire.square(statusIndex: index)
                snapshot[reversed ? square.rotated : square] = MillenniumWire.piece(forCharacter: character) ?? nil
            }
            events.append(.pieces(snapshot))
        case UInt8(ascii: "v"):
            let major =
                (MillenniumWire.hexValue(characters[1]) ?? 0) << 4 | (MillenniumWire.hexValue(characters[2]) ?? 0)
            let minor =
                (MillenniumWire.hexValue(characters[3]) ?? 0) << 4 | (MillenniumWire.hexValue(characters[4]) ?? 0)
            events.append(.version("\(major).\(minor)"))
        case UInt8(ascii: "l"), UInt8(ascii: "x"), UInt8(ascii: "w"):
            break
        default:
            events.append(.raw(Data(characters)))
        }
    }
}

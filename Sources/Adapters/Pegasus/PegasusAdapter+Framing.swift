public import BoardKit
public import FoundationEssentials

extension PegasusAdapter {
    /// Parses every complete message; keeps an incomplete tail for the next call.
    public mutating func feed(bytes: Data) -> [BoardEvent] {
        guard !bytes.isEmpty else { return [] }
        let framer = self
        var events: [BoardEvent] = []
        for piece in scanner.scan(bytes, classify: { framer.classify($0, at: $1) }) {
            switch piece {
            case .garbage(let data): events.append(.raw(data))
            case .frame(let frame): handle(frame, into: &events)
            }
        }
        return events
    }

    /// Decides whether a message starts at `index`. A candidate dies at the first byte
    /// with bit 7 set after its id, so a real message behind garbage always survives.
    func classify(_ bytes: [UInt8], at index: Int) -> FrameVerdict {
        let id = bytes[index]
        guard id & 0x80 != 0 else { return .garbage }
        let available = bytes.count - index
        for offset in 1..<min(3, available) where bytes[index + offset] & 0x80 != 0 { return .garbage }
        guard available >= 3 else { return .needMore }
        let size = Int(bytes[index + 1]) << 7 | Int(bytes[index + 2])
        let total: Int
        switch id {
        case PegasusWire.keyState: total = size < 3 ? size + 3 : size
        default: total = size
        }
        let plausible: Bool
        switch id {
        case PegasusWire.boardDump: plausible = total == 67
        case PegasusWire.fieldUpdate, PegasusWire.version, PegasusWire.hardwareVersion: plausible = total == 5
        case PegasusWire.serialNumber: plausible = total == 8
        case PegasusWire.longSerialNumber: plausible = total == 13
        case PegasusWire.keyState: plausible = total == 4
        case PegasusWire.batteryStatus: plausible = total >= 4 && total <= 16
        default: plausible = total >= 3 && total <= Self.maximumFrameLength
        }
        guard plausible else { return .garbage }
        for offset in 3..<max(3, min(total, available)) where bytes[index + offset] & 0x80 != 0 {
            return .garbage
        }
        return available >= total ? .frame(total) : .needMore
    }

    private mutating func handle(_ frame: [UInt8], into events: inout [BoardEvent]) {
        switch frame[0] {
        case PegasusWire.boardDump:
            let fields = frame[3...]
            if fields.allSatisfy({ $0 == PegasusWire.lockedSquare }) {
                events.append(.raw(Data(frame)))
                locked(into: &events)
                return
            }
            guard fields.allSatisfy({ $0 <= 0x0F }) else {
                events.append(.raw(Data(frame)))
                return
            }
            var map = OccupancyMap()
            for (field, code) in fields.enumerated() where code != 0 {
                if let square = PegasusWire.square(field: UInt8(field)) { map.insert(square) }
            }
            trackedOccupancy = map
            unlockState = true
            if !isReady {
                isReady = true
                events.append(.ready)
            }
            events.append(.occupancy(map))
        case PegasusWire.fieldUpdate:
            guard let square = PegasusWire.square(field: frame[3]) else {
                events.append(.raw(Data(frame)))
                return
            }
            if frame[4] == 0 {
                trackedOccupancy?.remove(square)
                events.append(.pieceLifted(square))
            } else {
                trackedOccupancy?.insert(square)
                events.append(.piecePlaced(square, piece: nil))
            }
        case PegasusWire.version:
            events.append(.version("\(frame[3]).\(frame[4])"))
        case PegasusWire.batteryStatus:
            events.append(.battery(percent: min(Int(frame[3]), 100), charging: nil))
        case PegasusWire.keyState:
            if frame[3] == 1 {
                unlockState = true
            } else {
                events.append(.raw(Data(frame)))
                locked(into: &events)
            }
        default:
            events.append(.raw(Data(frame)))
        }
    }

    /// The board said it is locked: reported once per link.
    private mutating func locked(into events: inout [BoardEvent]) {
        unlockState = false
        guard !reportedLock else { return }
        reportedLock = true
        events.append(.handshakeFailed(reason: lockReason))
    }
}

public import BoardKit
public import FoundationEssentials

extension DGTAdapter {
    /// Parses every complete message; keeps an incomplete tail for the next call.
    public mutating func feed(bytes: Data) -> [BoardEvent] {
        guard !bytes.isEmpty else { return [] }
        var events: [BoardEvent] = []
        for piece in scanner.scan(bytes, classify: Self.classify) {
            switch piece {
            case .garbage(let data): events.append(.raw(data))
            case .frame(let frame): handle(frame, into: &events)
            }
        }
        return events
    }

    /// The total size a message of `id` must have, or the range it may have.
    static func sizes(of id: UInt8) -> ClosedRange<Int> {
        switch id {
        case DGTWire.boardDump: 67...67
        case DGTWire.fieldUpdate, DGTWire.version: 5...5
        case DGTWire.clockTimes: 10...10
        case DGTWire.serialNumber: 8...8
        case DGTWire.longSerialNumber: 13...13
        // The reference gives 7 in the header and a 12-byte layout: both are taken.
        case DGTWire.batteryStatus: 4...16
        default: 3...maximumFrameLength
        }
    }

    /// Decides whether a message starts at `index`. A candidate dies at the first byte
    /// with bit 7 set after its id, so a real message behind garbage always survives.
    static func classify(_ bytes: [UInt8], at index: Int) -> FrameVerdict {
        let id = bytes[index]
        guard id & 0x80 != 0 else { return .garbage }
        let available = bytes.count - index
        for offset in 1..<min(3, available) where bytes[index + offset] & 0x80 != 0 { return .garbage }
        guard available >= 3 else { return .needMore }
        let total = Int(bytes[index + 1]) << 7 | Int(bytes[index + 2])
        guard sizes(of: id).contains(total) else { return .garbage }
        for offset in 3..<max(3, min(total, available)) where bytes[index + offset] & 0x80 != 0 {
            return .garbage
        }
        return available >= total ? .frame(total) : .needMore
    }

    private mutating func handle(_ frame: [UInt8], into events: inout [BoardEvent]) {
        let payload = frame[3...]
        switch frame[0] {
        case DGTWire.boardDump:
            var snapshot = BoardSnapshot()
            for (field, code) in payload.enumerated() {
                guard let piece = DGTWire.piece(code: code) else {
                    events.append(.raw(Data(frame)))
                    return
                }
                snapshot[DGTWire.square(field: UInt8(field))!] = piece
            }
            board = snapshot
            if !isReady {
                isReady = true
                events.append(.ready)
            }
            events.append(.pieces(snapshot))
        case DGTWire.fieldUpdate:
            guard var snapshot = board, let square = DGTWire.square(field: frame[3]),
                let piece = DGTWire.piece(code: frame[4])
            else {
                events.append(.raw(Data(frame)))
                return
            }
            snapshot[square] = piece
            board = snapshot
            events.append(.pieces(snapshot))
        case DGTWire.clockTimes:
            switch DGTClockTimes(payload: payload) {
            case .times(let reading): events.append(.clock(reading))
            case .noClock: events.append(.clock(nil))
            case .ack, nil: events.append(.raw(Data(frame)))
            }
        case DGTWire.serialNumber, DGTWire.longSerialNumber:
            let text = String(decoding: payload.filter { $0 > 0x20 }, as: UTF8.self)
            events.append(text.isEmpty ? .raw(Data(frame)) : .serialNumber(text))
        case DGTWire.version:
            events.append(.version("\(frame[3]).\(frame[4])"))
        case DGTWire.batteryStatus:
            events.append(.battery(percent: min(Int(frame[3]), 100), charging: nil))
        default:
            events.append(.raw(Data(frame)))
        }
    }
}

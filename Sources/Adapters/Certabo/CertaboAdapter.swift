public import BoardKit
public import FoundationEssentials

/// Wire framing for Certabo boards (``CertaboWire``): piece identity read from an RFID tag
/// in every piece, over USB serial.
///
/// Tags belong to physical pieces, so the adapter needs a ``PieceCalibration`` to name
/// them. Made without one, it lights the calibration squares and learns the table from
/// the start position (``CertaboCalibrator``): ``BoardEvent/calibration(_:)`` says
/// ``BoardCalibrationEvent/needed`` at the first frame, then
/// ``BoardCalibrationEvent/learned(_:)`` (for the host to keep and hand to the next
/// link's adapter), and the LEDs go off. Only a calibrated board is
/// ``BoardEvent/ready``.
///
/// In play each square's tag is the one at least two of the last ``votingFrames`` frames
/// agree on (low-gain readers miss a frame now and then), and the board is reported as
/// ``BoardEvent/pieces(_:)`` when it changed. A tag never learned is never guessed at: no
/// position is reported while one stands on the board, and
/// ``BoardCalibrationEvent/unknownPieces(_:)`` names its squares (empty again once it is
/// gone). A board that sends occupancy frames has no piece recognition (a Sentio): the
/// link is reported ``BoardEvent/handshakeFailed(reason:)``. The board streams its frames;
/// after ``keepAliveFrames`` that changed nothing its state is said again.
public struct CertaboAdapter: BoardAdapter {
    /// A Certabo board is no BLE device: it sits behind a USB serial line.
    public static let profile = BoardProfile.serialLine(.certabo)
    /// The frames a square's tag is voted over.
    public static let votingFrames = 3
    /// The least time between two LED writes: picochess's LED thread sends at most one every
    /// 0.6 s, classic or RGB (`led_control.py`).
    public static let writeInterval: TimeInterval = 0.6
    /// Frames in a row that changed nothing after which the adapter says the board's state
    /// again (its position, or where its calibration stands), about once a second at the
    /// board's 10 frames a second. Written when the stall watch counted events; it counts
    /// the line's bytes now, so a quiet board is no silent one without this.
    public static let keepAliveFrames = 10
    /// Why a board sending occupancy frames is refused.
    public static let occupancyOnlyReason =
        "the board reports occupancy only (no piece recognition): configure it as family sentio"

    /// The table in use (`nil` while the board is being calibrated).
    public private(set) var calibration: PieceCalibration?
    /// The LED marker the board's frames carry (`L` one LED per square, `D` RGB), if any.
    public var ledMarker: UInt8? { framer.ledMarker }

    var framer = CertaboFramer()
    var calibrator = CertaboCalibrator()
    var recent: [[PieceTag]] = []
    var decided: [PieceTag] = Array(repeating: 0, count: 64)
    var reported: BoardSnapshot?
    var unknown: [Square] = []
    var isReady = false
    var announcedNeed = false
    var refusedOccupancy = false
    var quietFrames = 0
    var pending: [Data] = []

    /// An adapter naming tags by `calibration`; `nil` learns it from the start position.
    public init(calibration: PieceCalibration? = nil) {
        self.calibration = calibration.flatMap { $0.count == 0 ? nil : $0 }
    }

    /// Piece identity and an LED per square.
    public var capabilities: BoardCapabilities { [.occupancySensing, .pieceIdentity, .perSquareLEDs, .moveIndication] }

    /// ``writeInterval``.
    public var minimumWriteInterval: TimeInterval { Self.writeInterval }

    /// Bytes held for an incomplete line.
    public var bufferedByteCount: Int { framer.bufferedByteCount }

    /// Forgets the stream, the votes and readiness; keeps the calibration.
    public mutating func reset() {
        self = CertaboAdapter(calibration: calibration)
    }

    /// Lights the calibration squares while uncalibrated, else turns the LEDs off: the
    /// board streams on its own and needs nothing else.
    public func handshakeCommands(isReconnect: Bool) -> [(command: BoardCommand, delayBefore: TimeInterval)] {
        [(calibration == nil ? .custom(Data(CertaboWire.calibrationLEDs)) : .clearIndications, 0)]
    }

    /// The LEDs off once a calibration was learned.
    public mutating func takePendingResponses() -> [Data] {
        defer { pending = [] }
        return pending
    }

    /// ``CertaboWire/encode(_:ledMarker:)``: the LEDs, and `custom` as is.
    public func encode(_ command: BoardCommand) -> Data? {
        CertaboWire.encode(command, ledMarker: framer.ledMarker)
    }

    /// Parses every complete frame; keeps an incomplete line for the next call.
    public mutating func feed(bytes: Data) -> [BoardEvent] {
        guard !bytes.isEmpty else { return [] }
        var events: [BoardEvent] = []
        for piece in framer.feed(bytes) {
            switch piece {
            case .garbage(let data):
                events.append(.raw(data))
            case .frame(let numbers):
                if numbers.count == CertaboWire.occupancyFrameCount {
                    if !refusedOccupancy {
                        refusedOccupancy = true
                        events.append(.handshakeFailed(reason: Self.occupancyOnlyReason))
                    }
                    continue
                }
                let before = events.count
                handle(tags: Self.tags(numbers), into: &events)
                if events.count == before { keepAlive(into: &events) } else { quietFrames = 0 }
            }
        }
        return events
    }

    /// The 64 tags of a 320-number frame, in ``Square`` order.
    static func tags(_ numbers: [UInt8]) -> [PieceTag] {
        var tags = [PieceTag](repeating: 0, count: 64)
        for index in 0..<64 {
            let start = index * CertaboWire.tagLength
            tags[CertaboWire.square(index: index).rawValue] = CertaboWire.tag(
                numbers[start..<(start + CertaboWire.tagLength)])
        }
        return tags
    }

    private mutating func handle(tags: [PieceTag], into events: inout [BoardEvent]) {
        guard let calibration else {
            learn(from: tags, into: &events)
            return
        }
        let changed = vote(tags)
        if !isReady {
            isReady = true
            events.append(.ready)
        }
        // Nothing decided differently: the position and the unknown pieces are as they were.
        guard changed || reported == nil else { return }
        var snapshot = BoardSnapshot()
        var unknownNow: [Square] = []
        for square in Square.allCases {
            let tag = decided[square.rawValue]
            guard tag != 0 else { continue }
            if let piece = calibration[tag] { snapshot[square] = piece } else { unknownNow.append(square) }
        }
        if unknownNow != unknown {
            unknown = unknownNow
            events.append(.calibration(.unknownPieces(unknownNow)))
        }
        guard unknownNow.isEmpty, snapshot != reported else { return }
        reported = snapshot
        events.append(.pieces(snapshot))
    }

    /// Counts a frame that changed nothing; every ``keepAliveFrames`` of them the state is
    /// said again.
    private mutating func keepAlive(into events: inout [BoardEvent]) {
        quietFrames += 1
        guard quietFrames >= Self.keepAliveFrames else { return }
        quietFrames = 0
        if calibration == nil {
            events.append(.calibration(.needed))
        } else if !unknown.isEmpty {
            events.append(.calibration(.unknownPieces(unknown)))
        } else if let reported {
            events.append(.pieces(reported))
        }
    }

    private mutating func learn(from tags: [PieceTag], into events: inout [BoardEvent]) {
        if !announcedNeed {
            announcedNeed = true
            events.append(.calibration(.needed))
            // The handshake lit the calibration squares with the 8-byte write, before the
            // board said which LEDs it has; an RGB board takes them again as its own write.
            if framer.ledMarker == CertaboWire.rgbMarker {
                let squares = Array(CertaboWire.litSquares(CertaboWire.calibrationLEDs))
                pending.append(encode(.indicate(squares: squares, style: .highlight)) ?? Data())
            }
        }
        switch calibrator.observe(tags) {
        case .waiting:
            break
        case .unsettled(let squares):
            events.append(.calibration(.unsettled(squares)))
        case .learned(let table):
            calibration = table
            events.append(.calibration(.learned(table)))
            pending.append(encode(.clearIndications) ?? Data())
            recent = []
            handle(tags: tags, into: &events)
        }
    }

    /// Takes `tags` into the vote: a square's tag changes when at least two of the last
    /// ``votingFrames`` frames show the new one (the first frame of a link counts alone).
    /// Returns whether a square's tag changed.
    private mutating func vote(_ tags: [PieceTag]) -> Bool {
        if recent.count == Self.votingFrames { recent.removeFirst() }
        recent.append(tags)
        guard recent.count > 1 else {
            defer { decided = tags }
            return decided != tags
        }
        var changed = false
        for index in 0..<64 where decided[index] != tags[index] {
            let candidate = tags[index]
            let votes = recent.reduce(0) { $0 + ($1[index] == candidate ? 1 : 0) }
            if votes >= 2 {
                decided[index] = candidate
                changed = true
            }
        }
        return changed
    }
}

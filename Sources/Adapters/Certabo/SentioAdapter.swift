public import BoardKit
public import FoundationEssentials

/// Wire framing for the Tabutronic Sentio (``CertaboWire``): an occupancy board on a USB
/// serial line, Certabo's protocol without piece recognition.
///
/// The board streams its 8 rank bitmasks; the first frame makes the adapter
/// ``BoardEvent/ready`` and every frame that differs from the last one reported is an
/// ``BoardEvent/occupancy(_:)`` (the kernel's occupancy path tells the moves); after
/// ``CertaboAdapter/keepAliveFrames`` frames that changed nothing, the occupancy is said
/// again. A board that
/// sends tag frames (a Certabo configured as a Sentio) is read the same way, a square
/// holding a tag being occupied.
public struct SentioAdapter: BoardAdapter {
    /// A Sentio is no BLE device: it sits behind a USB serial line.
    public static let profile = BoardProfile.serialLine(.sentio)

    var framer = CertaboFramer()
    var reported: OccupancyMap?
    var quietFrames = 0

    /// A fresh adapter.
    public init() {}

    /// Occupancy and an LED per square.
    public var capabilities: BoardCapabilities { [.occupancySensing, .perSquareLEDs, .moveIndication] }

    /// ``CertaboAdapter/writeInterval``.
    public var minimumWriteInterval: TimeInterval { CertaboAdapter.writeInterval }

    /// Bytes held for an incomplete line.
    public var bufferedByteCount: Int { framer.bufferedByteCount }

    /// The board streams on its own: the handshake only turns the LEDs off.
    public func handshakeCommands(isReconnect: Bool) -> [(command: BoardCommand, delayBefore: TimeInterval)] {
        [(.clearIndications, 0)]
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
                let map: OccupancyMap
                if numbers.count == CertaboWire.occupancyFrameCount {
                    map = CertaboWire.occupancy(ranks: numbers)
                } else {
                    map = OccupancyMap(
                        zip(Square.allCases, CertaboAdapter.tags(numbers)).filter { $0.1 != 0 }.map(\.0))
                }
                if reported == nil { events.append(.ready) }
                guard map != reported else {
                    // Said again now and then (CertaboAdapter.keepAliveFrames).
                    quietFrames += 1
                    if quietFrames >= CertaboAdapter.keepAliveFrames {
                        quietFrames = 0
                        events.append(.occupancy(map))
                    }
                    continue
                }
                quietFrames = 0
                reported = map
                events.append(.occupancy(map))
            }
        }
        return events
    }
}

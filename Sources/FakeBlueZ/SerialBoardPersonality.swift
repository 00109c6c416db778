public import FoundationEssentials

/// The firmware of a simulated Bluetooth Classic (RFCOMM / SPP) board: a byte handler at the
/// board's end of the serial link. Any byte protocol can sit here (the DGT personality, a
/// scripted stream); the fake only carries the bytes.
///
/// Calls come in link order: ``linkOpened(send:)`` when a host's profile accepted the
/// connection, ``received(_:)`` for each chunk the host wrote (stream semantics: chunks are
/// not frames), ``linkClosed()`` when the link ends for any reason. `send` writes to the host
/// while the link is up and does nothing after.
@MainActor
public protocol SerialBoardPersonality: AnyObject {
    /// The link is up; `send` writes bytes to the host until ``linkClosed()``.
    func linkOpened(send: @escaping @MainActor (Data) -> Void)
    /// The host wrote `bytes`.
    func received(_ bytes: Data)
    /// The link is down.
    func linkClosed()
}

/// A personality the tests control: records what the host wrote (the newest
/// ``capacity`` bytes) and, with ``echoes``, writes every chunk straight back.
@MainActor
public final class EchoSerialPersonality: SerialBoardPersonality {
    /// Whether received chunks are written back.
    public var echoes: Bool
    /// The most bytes ``received`` keeps.
    public let capacity: Int
    /// What the host wrote (the newest ``capacity`` bytes, all links).
    public private(set) var receivedBytes = Data()
    /// Links opened so far.
    public private(set) var openCount = 0
    private var send: (@MainActor (Data) -> Void)?

    /// An echoing (or, with `echoes: false`, silent) personality.
    public init(echoes: Bool = true, capacity: Int = 65_536) {
        self.echoes = echoes
        self.capacity = max(1, capacity)
    }

    /// Counts the link and keeps `send`.
    public func linkOpened(send: @escaping @MainActor (Data) -> Void) {
        openCount += 1
        self.send = send
    }

    /// Records `bytes` and echoes them.
    public func received(_ bytes: Data) {
        receivedBytes.append(bytes)
        if receivedBytes.count > capacity { receivedBytes.removeFirst(receivedBytes.count - capacity) }
        if echoes { send?(bytes) }
    }

    /// Forgets the link's `send`.
    public func linkClosed() {
        send = nil
    }

    /// Forgets what was received.
    public func clearReceived() {
        receivedBytes.removeAll()
    }
}

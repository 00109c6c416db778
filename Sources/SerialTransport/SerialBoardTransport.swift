public import BoardKit
public import BoardLink
public import FoundationEssentials
public import Logging
public import Serial

/// A board on a serial line (USB or RS232: a DGT e-Board, a Certabo, a Sentio), behind the ``BoardTransport``
/// seam, on the link runtime: the line opened raw at the family's speed becomes the board's
/// ``BoardLink/StreamLink`` (read on the main loop, every chunk fed to the adapter, one paced
/// writer for the handshake, commands and mandatory responses).
///
/// The device is named by path, best a stable `/dev/serial/by-id/…` link. When it goes
/// away (unplugged: a read fails or reports the end), the link is dropped with
/// ``BoardEvent/disconnected(error:)`` and reopened per the ``BoardReconnectPolicy`` by the
/// runtime's ``BoardLink/ReconnectRunner``; a restored link runs the handshake again
/// (`isReconnect`), with a fresh adapter, so the board's dump restarts the sensor stream. A
/// first open that fails is retried the same way.
@MainActor
public final class SerialBoardTransport: BoardTransport, BoardCommandChecking {
    /// The device path as configured.
    public let path: String
    /// The line speed.
    public let baudRate: SerialPort.BaudRate
    /// Whether DTR is lowered on every open (Certabo and Sentio lines, as picochess and
    /// BearChess open them).
    public let lowersDataTerminalReady: Bool
    /// When and how often a lost line is reopened.
    public let policy: BoardReconnectPolicy

    /// The link state.
    public private(set) var state: BoardTransportState = .idle {
        didSet { if state != oldValue { onStateChange?(state) } }
    }
    /// While a reopen waits: how long that wait is (seconds); else `nil`.
    public var nextDelay: TimeInterval? { runner.nextDelay }
    /// Called whenever ``state`` changes (after ``lastError`` and ``nextDelay`` are set).
    public var onStateChange: (@MainActor (BoardTransportState) -> Void)?
    /// The device, once a scan found its path.
    public private(set) var discovered: [DiscoveredBoardDevice] = []
    /// The last error, readable.
    public private(set) var lastError: String?
    /// Decoded events and link events, in order.
    public let events: AsyncStream<BoardEvent>

    private let makeAdapter: @MainActor () -> any BoardAdapter
    private let continuation: AsyncStream<BoardEvent>.Continuation
    private let scheduler: any LinkScheduler
    private let logger: Logger
    private let runner: ReconnectRunner
    private var link: StreamLink?

    /// Bytes the current link has read from the board (0 without a link).
    public var linkBytesReceived: Int { link?.bytesReceived ?? 0 }

    /// A transport for the device at `path`; `makeAdapter` gives a fresh adapter per link.
    public init(
        path: String, baudRate: SerialPort.BaudRate = .b9600, lowersDataTerminalReady: Bool = false,
        policy: BoardReconnectPolicy = BoardReconnectPolicy(), scheduler: any LinkScheduler = MainLoopScheduler(),
        logger: Logger = .silent, makeAdapter: @escaping @MainActor () -> any BoardAdapter
    ) {
        self.path = path
        self.baudRate = baudRate
        self.lowersDataTerminalReady = lowersDataTerminalReady
        self.policy = policy
        self.makeAdapter = makeAdapter
        self.scheduler = scheduler
        self.logger = logger
        runner = ReconnectRunner(scheduler: scheduler)
        (events, continuation) = AsyncStream.makeStream(of: BoardEvent.self, bufferingPolicy: .bufferingNewest(4096))
    }

    /// The device path while connected.
    public var connectedDeviceName: String? { state == .connected ? path : nil }

    /// The device as a discovered board (its path is its name and token).
    public var device: DiscoveredBoardDevice {
        DiscoveredBoardDevice(id: Self.identifier(path), name: path, rssi: 0, token: path)
    }

    /// Looks whether the device path leads to a device now.
    public func startScan() {
        discovered = SerialPort.resolve(path) == nil ? [] : [device]
        if state == .idle || state == .disconnected { state = .scanning }
    }

    /// Stops looking.
    public func stopScan() {
        if state == .scanning { state = .idle }
    }

    /// Opens the line (retried per the policy while the device is missing).
    public func connect(_ device: DiscoveredBoardDevice) {
        closeLink()
        state = .connecting
        if let reason = open(isReconnect: false) {
            lastError = reason
            reopen(isReconnect: false)
        }
    }

    /// Opens the line and keeps it open per the policy; does nothing while the line is open
    /// or a reopen waits. Call again after the policy gave up, or after ``disconnect()``.
    public func start() {
        guard link == nil, !runner.isRunning else { return }
        connect(device)
    }

    /// ``disconnect()``: a serial line closes at once, nothing to wait for.
    public func close() async {
        disconnect()
    }

    /// Closes the line on the user's request; no reconnect follows.
    public func disconnect() {
        let wasLinked = link != nil
        closeLink()
        state = .disconnected
        if wasLinked { continuation.yield(.disconnected(error: nil)) }
    }

    /// Ends the open line as an unplug does (``BoardEvent/disconnected(error:)`` with
    /// `reason`), then reopens it per the policy: for a board that stopped answering.
    public func recycleLink(reason: String) {
        guard link != nil else { return }
        lost(reason)
    }

    /// Queues the adapter's bytes for `command` on the paced writer.
    public func send(_ command: BoardCommand) {
        _ = sendIfSupported(command)
    }

    /// Encodes `command` once and queues it; `false` (nothing sent) when the line is down
    /// or the adapter encodes nothing for it.
    public func sendIfSupported(_ command: BoardCommand) -> Bool {
        guard state == .connected else { return false }
        return link?.send(command) ?? false
    }

    // MARK: The line

    /// Opens the line and brings the link up; the reason when it cannot be opened.
    private func open(isReconnect: Bool) -> String? {
        let port: SerialPort
        do {
            port = try SerialPort.open(
                path: path, baudRate: baudRate, lowersDataTerminalReady: lowersDataTerminalReady)
        } catch {
            return error.description
        }
        link = StreamLink(
            stream: SerialLineStream(port: port), adapter: makeAdapter(), scheduler: scheduler, logger: logger,
            onEvents: { [weak self] events in for event in events { self?.continuation.yield(event) } },
            onClose: { [weak self] reason in self?.lost(reason) })
        state = .connected
        continuation.yield(.connected)
        link?.runHandshake(isReconnect: isReconnect)
        return nil
    }

    private func lost(_ reason: String) {
        lastError = reason
        closeLink()
        continuation.yield(.disconnected(error: reason))
        reopen(isReconnect: true)
    }

    /// Reopens the line per the policy.
    private func reopen(isReconnect: Bool) {
        runner.run(
            policy,
            ReconnectRunner.Steps(
                waiting: { [weak self] attempt, _ in self?.state = .reconnecting(attempt: attempt) },
                connect: { [weak self] _ in
                    guard let self else { return .cancelled }
                    return self.open(isReconnect: isReconnect).map { .failed($0) } ?? .connected
                },
                failed: { [weak self] _, reason in self?.lastError = reason },
                gaveUp: { [weak self] _ in self?.state = .disconnected }))
    }

    private func closeLink() {
        runner.cancel()
        link?.close()
        link = nil
    }

    private static func identifier(_ path: String) -> UUID {
        // A stable identifier from the path (FNV-1a over its bytes, twice for 128 bits).
        var high: UInt64 = 0xcbf2_9ce4_8422_2325
        var low: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in path.utf8 {
            high = (high ^ UInt64(byte)) &* 0x100_0000_01b3
            low = (low ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let bytes = withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { Array($0) }
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}

/// A serial line as the byte stream of a ``BoardLink/StreamLink``.
@MainActor
final class SerialLineStream: LinkByteStream {
    private let port: SerialPort

    init(port: SerialPort) {
        self.port = port
    }

    var descriptor: Int32 { port.descriptor }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> LinkRead {
        do {
            let bytes = try port.read(maximum: buffer.count)
            guard !bytes.isEmpty else { return .nothingWaiting }
            buffer.copyBytes(from: bytes)
            return .bytes(bytes.count)
        } catch {
            return .ended(error.description)
        }
    }

    func write(_ buffer: UnsafeRawBufferPointer) -> LinkWrite {
        do {
            let taken = try port.write(Array(buffer))
            return taken > 0 || buffer.isEmpty ? .wrote(taken) : .full
        } catch {
            return .ended(error.description)
        }
    }

    func close() {
        port.close()
    }
}

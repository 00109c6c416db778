public import BoardKit
public import FoundationEssentials
import MainLoop
public import Serial

/// A board on a serial line (USB or RS232: a DGT e-Board), behind the ``BoardTransport``
/// seam: the line opened raw at the family's speed, its readability watched on the main
/// queue (the ``MainLoop`` when active), every chunk fed to the adapter, and one paced
/// writer for the handshake, commands and mandatory responses.
///
/// The device is named by path, best a stable `/dev/serial/by-id/…` link. When it goes
/// away (unplugged: a read fails or reports the end), the link is dropped with
/// ``BoardEvent/disconnected(error:)`` and reopened per the ``BoardReconnectPolicy``; a
/// restored link runs the handshake again (`isReconnect`), with a fresh adapter, so the
/// board's dump restarts the sensor stream. A first open that fails is retried the same
/// way.
@MainActor
public final class SerialBoardTransport: BoardTransport, BoardCommandChecking {
    /// The device path as configured.
    public let path: String
    /// The line speed.
    public let baudRate: SerialPort.BaudRate
    /// When and how often a lost line is reopened.
    public let policy: BoardReconnectPolicy

    /// The link state.
    public private(set) var state: BoardTransportState = .idle {
        didSet { if state != oldValue { onStateChange?(state) } }
    }
    /// While a reopen waits: how long that wait is (seconds); else `nil`.
    public private(set) var nextDelay: TimeInterval?
    /// Called whenever ``state`` changes (after ``lastError`` and ``nextDelay`` are set).
    public var onStateChange: (@MainActor (BoardTransportState) -> Void)?
    /// The device, once a scan found its path.
    public private(set) var discovered: [DiscoveredBoardDevice] = []
    /// The last error, readable.
    public private(set) var lastError: String?
    /// Decoded events and link events, in order.
    public let events: AsyncStream<BoardEvent>

    private let makeAdapter: @Sendable () -> any BoardAdapter
    private var adapter: any BoardAdapter
    private let continuation: AsyncStream<BoardEvent>.Continuation
    private var port: SerialPort?
    private var watch: ReadableWatch?
    private var queue: [(bytes: [UInt8], delayBefore: TimeInterval)] = []
    private var writer: Task<Void, Never>?
    private var retry: Task<Void, Never>?
    private var lastWrite: ContinuousClock.Instant?
    private var link = 0

    /// A transport for the device at `path`; `makeAdapter` gives a fresh adapter per link.
    public init(
        path: String, baudRate: SerialPort.BaudRate = .b9600, policy: BoardReconnectPolicy = BoardReconnectPolicy(),
        makeAdapter: @escaping @Sendable () -> any BoardAdapter
    ) {
        self.path = path
        self.baudRate = baudRate
        self.policy = policy
        self.makeAdapter = makeAdapter
        adapter = makeAdapter()
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
        open(isReconnect: false, attempt: 0)
    }

    /// Opens the line and keeps it open per the policy; does nothing while the line is open
    /// or a reopen waits. Call again after the policy gave up, or after ``disconnect()``.
    public func start() {
        guard port == nil, retry == nil else { return }
        connect(device)
    }

    /// ``disconnect()``: a serial line closes at once, nothing to wait for.
    public func close() async {
        disconnect()
    }

    /// Closes the line on the user's request; no reconnect follows.
    public func disconnect() {
        let wasLinked = port != nil
        closeLink()
        state = .disconnected
        if wasLinked { continuation.yield(.disconnected(error: nil)) }
    }

    /// Ends the open line as an unplug does (``BoardEvent/disconnected(error:)`` with
    /// `reason`), then reopens it per the policy: for a board that stopped answering.
    public func recycleLink(reason: String) {
        guard port != nil else { return }
        lost(reason)
    }

    /// Queues the adapter's bytes for `command` on the paced writer.
    public func send(_ command: BoardCommand) {
        _ = sendIfSupported(command)
    }

    /// Encodes `command` once and queues it; `false` (nothing sent) when the line is down
    /// or the adapter encodes nothing for it.
    public func sendIfSupported(_ command: BoardCommand) -> Bool {
        guard state == .connected, let bytes = adapter.encode(command) else { return false }
        enqueue(Array(bytes), delayBefore: 0)
        return true
    }

    // MARK: The line

    private func open(isReconnect: Bool, attempt: Int) {
        let opened: SerialPort
        do {
            opened = try SerialPort.open(path: path, baudRate: baudRate)
        } catch {
            lastError = error.description
            scheduleReconnect(attempt: attempt + 1, isReconnect: isReconnect)
            return
        }
        link += 1
        let current = link
        port = opened
        retry = nil
        nextDelay = nil
        adapter = makeAdapter()
        lastWrite = nil
        watch = ReadableWatch(descriptor: opened.descriptor, closesDescriptor: false) { [weak self] in
            self?.readable(link: current)
        }
        state = .connected
        continuation.yield(.connected)
        for step in adapter.handshakeCommands(isReconnect: isReconnect) {
            if let bytes = adapter.encode(step.command) { enqueue(Array(bytes), delayBefore: step.delayBefore) }
        }
    }

    private func readable(link current: Int) {
        guard current == link, let port else { return }
        let bytes: [UInt8]
        do {
            bytes = try port.read()
        } catch {
            lost(error.description)
            return
        }
        guard !bytes.isEmpty else { return }
        for event in adapter.feed(bytes: Data(bytes)) { continuation.yield(event) }
        for response in adapter.takePendingResponses() { enqueue(Array(response), delayBefore: 0) }
    }

    private func lost(_ reason: String) {
        lastError = reason
        closeLink()
        continuation.yield(.disconnected(error: reason))
        scheduleReconnect(attempt: 1, isReconnect: true)
    }

    private func scheduleReconnect(attempt: Int, isReconnect: Bool) {
        guard let delay = policy.nextDelay(attempt: attempt) else {
            retry = nil
            nextDelay = nil
            state = .disconnected
            return
        }
        nextDelay = delay
        state = .reconnecting(attempt: attempt)
        retry = Task { [weak self] in
            try? await Task.sleep(for: .seconds(delay))
            guard !Task.isCancelled else { return }
            self?.open(isReconnect: isReconnect, attempt: attempt)
        }
    }

    private func closeLink() {
        retry?.cancel()
        retry = nil
        nextDelay = nil
        writer?.cancel()
        writer = nil
        queue = []
        watch?.cancel()
        watch = nil
        port?.close()
        port = nil
        link += 1
    }

    // MARK: The paced writer

    private func enqueue(_ bytes: [UInt8], delayBefore: TimeInterval) {
        queue.append((bytes, delayBefore))
        guard writer == nil else { return }
        let current = link
        writer = Task { [weak self] in await self?.drain(link: current) }
    }

    /// Writes the queue in order: each write after its delay and no sooner than the
    /// adapter's write floor after the previous one; a write the line takes in part is
    /// finished before the next.
    private func drain(link current: Int) async {
        while current == link, !queue.isEmpty {
            let (bytes, delayBefore) = queue.removeFirst()
            var wait = delayBefore
            if let lastWrite {
                let since = ContinuousClock.now - lastWrite
                let floor =
                    adapter.minimumWriteInterval - Double(since.components.seconds)
                    - Double(since.components.attoseconds) / 1e18
                wait = max(wait, floor)
            }
            if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
            var rest = bytes[...]
            while !rest.isEmpty {
                guard current == link, !Task.isCancelled, let port else { return }
                do {
                    let taken = try port.write(Array(rest))
                    rest = rest.dropFirst(taken)
                    if taken == 0 { try? await Task.sleep(for: .milliseconds(5)) }
                } catch {
                    lost(error.description)
                    return
                }
            }
            lastWrite = ContinuousClock.now
        }
        if current == link { writer = nil }
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

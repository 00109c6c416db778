public import BoardKit
import FoundationEssentials
public import Logging
import MainLoop

/// One link to a board over a byte stream (a Bluetooth Classic RFCOMM socket, a serial line):
/// the board's ``BoardKit/BoardAdapter`` fed from the stream, and one ``PacedWriter`` to it.
///
/// Input: the stream's descriptor is watched on ``MainLoop`` (level-triggered, one fixed
/// buffer per read); each read → `adapter.feed(bytes:)` → the adapter's pending responses
/// onto the writer's response lane → the events to `onEvents`. Output: ``send(_:)`` and the
/// handshake (``runHandshake(isReconnect:)``) encode through the adapter onto the writer,
/// which writes without blocking (a full stream is retried every 20 ms, a partial write
/// continues with the rest). The end of the stream (end of file, a read or write error) is
/// reported once through `onClose`; ``close()`` ends the link without a report. The stream
/// is closed exactly once.
@MainActor
public final class StreamLink {
    /// The most bytes read at once.
    public static let readSize = 4096
    /// How often a full stream is retried before a chunk is given up (at 20 ms: 10 s).
    public static let maximumFullRetries = 500

    /// The board's adapter (fresh for every link).
    public private(set) var adapter: any BoardAdapter
    /// The link's writer, while the link is open.
    public private(set) var writer: PacedWriter?
    /// Bytes read from the stream so far (the health watch's sign of life).
    public private(set) var bytesReceived = 0
    private let stream: any LinkByteStream
    private var watch: DescriptorWatch?
    private var buffer = [UInt8](repeating: 0, count: StreamLink.readSize)
    private let scheduler: any LinkScheduler
    private let onEvents: @MainActor ([BoardEvent]) -> Void
    private let onClose: @MainActor (String) -> Void
    private var timers: [LinkTimer] = []

    /// Opens the link on `stream` (taken over: closed by the link).
    ///
    /// - Parameters:
    ///   - maximumChunkLength: the longest single write.
    ///   - onEvents: the events decoded from each read, in order.
    ///   - onClose: the reason the stream ended (once; not after ``close()``).
    public init(
        stream: any LinkByteStream, adapter: any BoardAdapter, maximumChunkLength: Int = 512,
        scheduler: any LinkScheduler, logger: Logger, onEvents: @escaping @MainActor ([BoardEvent]) -> Void,
        onClose: @escaping @MainActor (String) -> Void
    ) {
        self.stream = stream
        self.adapter = adapter
        self.scheduler = scheduler
        self.onEvents = onEvents
        self.onClose = onClose
        writer = PacedWriter(
            minimumInterval: adapter.minimumWriteInterval, maximumChunkLength: maximumChunkLength,
            scheduler: scheduler, logger: logger
        ) { [weak self] chunk, completion in
            guard let self else { return completion(.linkLost("link closed")) }
            self.write(chunk, retries: 0, completion: completion)
        }
        writer?.onLinkLost = { [weak self] reason in self?.fail(reason) }
        watch = DescriptorWatch(descriptor: stream.descriptor, closesDescriptor: false) { [weak self] in
            self?.readAvailable()
        }
    }

    /// Whether the link is open (not closed, not ended).
    public var isOpen: Bool { watch != nil }

    /// Queues the adapter's handshake (`handshakeCommands(isReconnect:)`), each step after
    /// its delay.
    public func runHandshake(isReconnect: Bool) {
        for step in adapter.handshakeCommands(isReconnect: isReconnect) {
            guard let bytes = adapter.encode(step.command) else { continue }
            writer?.enqueue(bytes, delayBefore: step.delayBefore)
        }
    }

    /// Encodes `command` once and queues it; `false` (nothing sent) when the link is closed
    /// or the adapter encodes nothing for it.
    public func send(_ command: BoardCommand) -> Bool {
        guard let writer, let bytes = adapter.encode(command) else { return false }
        writer.enqueue(bytes)
        return true
    }

    /// Stops reading and writing and closes the stream, without reporting. Idempotent.
    public func close() {
        writer?.stop()
        writer = nil
        for timer in timers { timer.cancel() }
        timers.removeAll()
        watch?.cancel()
        watch = nil
        stream.close()
    }

    /// Reads what waits on the stream (one buffer's worth) and hands it on.
    public func readAvailable() {
        guard isOpen else { return }
        let read = buffer.withUnsafeMutableBytes { stream.read(into: $0) }
        switch read {
        case .bytes(let count):
            bytesReceived &+= count
            let events = adapter.feed(bytes: Data(buffer[0..<count]))
            for response in adapter.takePendingResponses() { writer?.enqueueResponse(response) }
            if !events.isEmpty { onEvents(events) }
        case .nothingWaiting:
            return
        case .ended(let reason):
            fail(reason)
        }
    }

    private func fail(_ reason: String) {
        guard isOpen else { return }
        close()
        onClose(reason)
    }

    private func write(_ chunk: Data, retries: Int, completion: @escaping @MainActor (LinkWriteResult) -> Void) {
        guard isOpen else { return completion(.linkLost("link closed")) }
        let result = chunk.withUnsafeBytes { stream.write($0) }
        switch result {
        case .wrote(let sent) where sent == chunk.count:
            completion(.success)
        case .wrote(let sent):
            let rest = Data(chunk.dropFirst(sent))
            later { [weak self] in self?.write(rest, retries: 0, completion: completion) }
        case .full:
            guard retries < Self.maximumFullRetries else { return completion(.failed("stream full")) }
            later { [weak self] in self?.write(chunk, retries: retries + 1, completion: completion) }
        case .ended(let reason):
            completion(.linkLost(reason))
        }
    }

    private func later(_ action: @escaping @MainActor () -> Void) {
        // Fired timers are done with; keep the list short.
        if timers.count > 8 { timers.removeFirst(timers.count - 8) }
        timers.append(scheduler.schedule(after: 0.02, action))
    }

    isolated deinit {
        close()
    }
}

import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How one physical write ended.
public enum BlueZWriteResult: Hashable, Sendable {
    /// Written.
    case success
    /// Busy (`InProgress`): the same chunk is tried again shortly.
    case retry(String)
    /// Failed for this payload only: the payload is dropped, the queue goes on.
    case failed(String)
    /// The link is down ("Not connected"): the queue is dropped and the owner told.
    case linkLost(String)
}

/// The one serialized, paced writer of a board link (DESIGN.md §2, the spec's
/// `minimumWriteInterval`).
///
/// Every payload (commands, handshake steps, the adapter's pending responses) goes through
/// this FIFO. One physical write is in flight at a time; the next starts only after the
/// previous one completed (its D-Bus reply arrived) **and** at least ``minimumInterval``
/// later, measured from that completion, so the floor holds at the peer whatever the bus
/// latency. A payload longer than ``maximumChunkLength`` is written in chunks, each a
/// physical write of its own with the floor before it (the spec: "at least this many seconds
/// between physical writes"); no other message comes between them. A payload
/// queued with `delayBefore` waits that long after the previous message completed (or after
/// it was queued, if the writer was idle): the handshake's delays.
@MainActor
public final class BlueZPacedWriter {
    /// Performs one physical write and reports how it ended (exactly once, later or at once).
    public typealias Sink =
        @MainActor (_ chunk: Data, _ completion: @escaping @MainActor (BlueZWriteResult) -> Void) ->
        Void

    /// The least time between the completion of one message's write and the next message's.
    public let minimumInterval: TimeInterval
    /// The longest single write (`nil`: no limit).
    public var maximumChunkLength: Int?
    /// The most messages waiting; more are dropped (and logged).
    public let capacity: Int
    /// How long to wait before retrying a busy write, and how often.
    public let retryDelay: TimeInterval
    /// Retries of one chunk before it is dropped.
    public let maximumRetries: Int
    /// Called once when a write reports ``BlueZWriteResult/linkLost(_:)`` (the queue is already empty).
    public var onLinkLost: (@MainActor (String) -> Void)?

    private struct Message {
        var chunks: [Data]
        var delayBefore: TimeInterval
        var enqueuedAt: TimeInterval
    }

    private let scheduler: any BlueZScheduler
    private let sink: Sink
    private let logger: Logger
    private var queue: [Message] = []
    private var current: Message?
    private var chunkIndex = 0
    private var retries = 0
    private var inFlight = false
    private var timer: BlueZTimer?
    private var lastCompletion: TimeInterval?
    private var generation = 0
    private var stopped = false

    /// Physical writes started so far (chunks count one each).
    public private(set) var writeCount = 0
    /// Messages dropped because the queue was full.
    public private(set) var droppedCount = 0

    /// A writer that writes through `sink`.
    public init(
        minimumInterval: TimeInterval, maximumChunkLength: Int? = nil, capacity: Int = 256,
        retryDelay: TimeInterval = 0.05, maximumRetries: Int = 40, scheduler: any BlueZScheduler,
        logger: Logger = .silent, sink: @escaping Sink
    ) {
        self.minimumInterval = max(0, minimumInterval)
        self.maximumChunkLength = maximumChunkLength
        self.capacity = max(1, capacity)
        self.retryDelay = max(0, retryDelay)
        self.maximumRetries = max(0, maximumRetries)
        self.scheduler = scheduler
        self.logger = logger
        self.sink = sink
    }

    /// Messages not yet completely written (including the one being written).
    public var pendingCount: Int {
        queue.count + (current == nil ? 0 : 1)
    }

    /// Whether nothing is queued or being written.
    public var isIdle: Bool {
        pendingCount == 0 && !inFlight
    }

    /// Queues `payload` (an empty one is ignored), to be written no sooner than `delayBefore`
    /// seconds after the previous message (see the type's documentation).
    public func enqueue(_ payload: Data, delayBefore: TimeInterval = 0) {
        guard !stopped, !payload.isEmpty else { return }
        guard pendingCount < capacity else {
            droppedCount += 1
            logger.error("write queue full (\(capacity) messages); dropped a \(payload.count)-byte payload")
            return
        }
        queue.append(Message(chunks: split(payload), delayBefore: max(0, delayBefore), enqueuedAt: scheduler.now))
        pump()
    }

    /// Drops everything queued, ignores the result of a write in flight, and refuses new
    /// payloads. Idempotent.
    public func stop() {
        stopped = true
        clear()
    }

    private func clear() {
        generation += 1
        queue.removeAll()
        current = nil
        chunkIndex = 0
        retries = 0
        inFlight = false
        timer?.cancel()
        timer = nil
    }

    private func split(_ payload: Data) -> [Data] {
        guard let limit = maximumChunkLength, limit > 0, payload.count > limit else { return [payload] }
        return stride(from: 0, to: payload.count, by: limit).map { offset in
            let start = payload.index(payload.startIndex, offsetBy: offset)
            let end = payload.index(start, offsetBy: min(limit, payload.count - offset))
            return Data(payload[start..<end])
        }
    }

    /// Starts the next write when one is due, or arms the timer for it.
    private func pump() {
        guard !stopped, !inFlight, timer == nil else { return }
        if current == nil {
            guard !queue.isEmpty else { return }
            current = queue.removeFirst()
            chunkIndex = 0
            retries = 0
        }
        guard let message = current, chunkIndex < message.chunks.count else {
            current = nil
            pump()
            return
        }
        let now = scheduler.now
        var due = now
        if chunkIndex == 0 {
            let since = max(message.enqueuedAt, lastCompletion ?? message.enqueuedAt)
            due = max(due, since + message.delayBefore)
        }
        if let lastCompletion { due = max(due, lastCompletion + minimumInterval) }
        if due > now {
            timer = scheduler.schedule(after: due - now) { [weak self] in
                guard let self else { return }
                self.timer = nil
                self.pump()
            }
            return
        }
        write(message.chunks[chunkIndex])
    }

    private func write(_ chunk: Data) {
        inFlight = true
        writeCount += 1
        let generation = self.generation
        sink(chunk) { [weak self] result in
            guard let self, self.generation == generation, self.inFlight else { return }
            self.inFlight = false
            self.finish(result)
        }
    }

    private func finish(_ result: BlueZWriteResult) {
        switch result {
        case .success:
            advance()
        case .retry(let reason):
            guard retries < maximumRetries else {
                logger.warning("write still busy after \(retries) retries (\(reason)); payload dropped")
                dropCurrent()
                return
            }
            retries += 1
            timer = scheduler.schedule(after: retryDelay) { [weak self] in
                guard let self else { return }
                self.timer = nil
                self.pump()
            }
        case .failed(let reason):
            logger.warning("write failed (\(reason)); payload dropped")
            dropCurrent()
        case .linkLost(let reason):
            clear()
            onLinkLost?(reason)
        }
    }

    private func advance() {
        chunkIndex += 1
        retries = 0
        lastCompletion = scheduler.now
        if let message = current, chunkIndex >= message.chunks.count {
            current = nil
        }
        pump()
    }

    private func dropCurrent() {
        current = nil
        chunkIndex = 0
        retries = 0
        lastCompletion = scheduler.now
        pump()
    }
}

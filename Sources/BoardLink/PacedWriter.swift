public import FoundationEssentials
public import Logging

/// How one physical write ended.
public enum LinkWriteResult: Hashable, Sendable {
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
/// it was queued, if the writer was idle): the handshake's delays. Responses written in
/// between do not count: the delay is between messages.
///
/// The adapter's mandatory responses (ChessUp's acks, ``enqueueResponse(_:)``) have a lane
/// of their own: they go out before the next queued message (never between the chunks of
/// one, and without its `delayBefore`: a handshake step waiting does not hold them up), and
/// the responses waiting when a write starts go out together in that one write (as many as
/// fit in ``maximumChunkLength``, the board reads them one after the other). A board that
/// reports faster than one write's round trip then still gets every ack before it gives up
/// retransmitting; one write per ack fell behind and the board dropped the link.
@MainActor
public final class PacedWriter {
    /// Performs one physical write and reports how it ended (exactly once, later or at once).
    public typealias Sink =
        @MainActor (_ chunk: Data, _ completion: @escaping @MainActor (LinkWriteResult) -> Void) ->
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
    /// Called once when a write reports ``LinkWriteResult/linkLost(_:)`` (the queue is already empty).
    public var onLinkLost: (@MainActor (String) -> Void)?

    private struct Message {
        var chunks: [Data]
        var delayBefore: TimeInterval
        var enqueuedAt: TimeInterval
    }

    private let scheduler: any LinkScheduler
    private let sink: Sink
    private let logger: Logger
    private var queue: [Message] = []
    private var responses: [Data] = []
    /// The responses of the write in flight (kept to retry a busy write).
    private var responsesInFlight: Data?
    private var timerIsRetry = false
    private var current: Message?
    private var chunkIndex = 0
    private var retries = 0
    private var inFlight = false
    private var timer: LinkTimer?
    private var lastCompletion: TimeInterval?
    /// When the last queued message (not a response) completed: what `delayBefore` counts from.
    private var lastMessageCompletion: TimeInterval?
    private var generation = 0
    private var stopped = false

    /// Physical writes started so far (chunks count one each).
    public private(set) var writeCount = 0
    /// Messages dropped because the queue was full.
    public private(set) var droppedCount = 0

    /// A writer that writes through `sink`.
    public init(
        minimumInterval: TimeInterval, maximumChunkLength: Int? = nil, capacity: Int = 256,
        retryDelay: TimeInterval = 0.05, maximumRetries: Int = 40, scheduler: any LinkScheduler,
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

    /// Messages not yet completely written (including the one being written); responses
    /// count one each.
    public var pendingCount: Int {
        queue.count + (current == nil ? 0 : 1) + responses.count + (responsesInFlight == nil ? 0 : 1)
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

    /// Queues a mandatory response of the adapter (an ack): written before the next queued
    /// message, together with the other responses waiting (see the type's documentation).
    public func enqueueResponse(_ payload: Data) {
        guard !stopped, !payload.isEmpty else { return }
        guard responses.count < capacity else {
            droppedCount += 1
            logger.error("response queue full (\(capacity) responses); dropped a \(payload.count)-byte response")
            return
        }
        responses.append(payload)
        // A message waiting for its delay or the floor does not hold the response up: the
        // timer is set again for whichever is due first.
        if let timer, !timerIsRetry, !inFlight {
            timer.cancel()
            self.timer = nil
        }
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
        responses.removeAll()
        responsesInFlight = nil
        timerIsRetry = false
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
        let now = scheduler.now
        if responsesInFlight != nil || (!responses.isEmpty && chunkIndex == 0) {
            // Responses first (a message of several chunks is finished first).
            let due = lastCompletion.map { max(now, $0 + minimumInterval) } ?? now
            guard due <= now else {
                arm(after: due - now)
                return
            }
            let payload = responsesInFlight ?? takeResponses()
            responsesInFlight = payload
            write(payload)
            return
        }
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
        var due = now
        if chunkIndex == 0 {
            // Responses written since do not push the delay back: a board acked faster
            // than the delay would starve the step.
            let since = max(message.enqueuedAt, lastMessageCompletion ?? message.enqueuedAt)
            due = max(due, since + message.delayBefore)
        }
        if let lastCompletion { due = max(due, lastCompletion + minimumInterval) }
        if due > now {
            arm(after: due - now)
            return
        }
        write(message.chunks[chunkIndex])
    }

    /// The responses waiting that fit in one write (at least one), in order.
    private func takeResponses() -> Data {
        var payload = responses.removeFirst()
        let limit = maximumChunkLength ?? Int.max
        while let next = responses.first, payload.count + next.count <= limit {
            payload.append(next)
            responses.removeFirst()
        }
        return payload
    }

    private func arm(after delay: TimeInterval, retry: Bool = false) {
        timerIsRetry = retry
        timer = scheduler.schedule(after: delay) { [weak self] in
            guard let self else { return }
            self.timer = nil
            self.timerIsRetry = false
            self.pump()
        }
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

    private func finish(_ result: LinkWriteResult) {
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
            arm(after: retryDelay, retry: true)
        case .failed(let reason):
            logger.warning("write failed (\(reason)); payload dropped")
            dropCurrent()
        case .linkLost(let reason):
            clear()
            onLinkLost?(reason)
        }
    }

    private func advance() {
        lastCompletion = scheduler.now
        retries = 0
        if responsesInFlight != nil {
            responsesInFlight = nil
        } else {
            lastMessageCompletion = lastCompletion
            chunkIndex += 1
            if let message = current, chunkIndex >= message.chunks.count {
                current = nil
                chunkIndex = 0
            }
        }
        pump()
    }

    private func dropCurrent() {
        if responsesInFlight != nil {
            responsesInFlight = nil
        } else {
            current = nil
            chunkIndex = 0
            lastMessageCompletion = scheduler.now
        }
        retries = 0
        lastCompletion = scheduler.now
        pump()
    }
}

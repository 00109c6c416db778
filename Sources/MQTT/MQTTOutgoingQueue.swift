/// The client's bounded queue of outgoing messages (pure value, no I/O).
///
/// Every message goes through it, connected or not. Messages of one
/// ``MQTTMessagePriority`` are delivered in publish order; pending ``MQTTMessagePriority/normal``
/// messages go before pending ``MQTTMessagePriority/low`` ones. A message is *pending* until
/// handed to libmosquitto, then *in flight* (keyed by its libmosquitto message id) until the
/// broker acknowledges it (QoS 1/2) or it is written (QoS 0). When a connection ends,
/// in-flight messages go back to the front of their priority, in order, to be sent again
/// on the next connection.
///
/// The queue is bounded twice: at most `limit` messages and `byteLimit` bytes
/// (``footprint(of:)``: topic, payload and properties), in flight included. When another
/// message would pass either bound, pending messages are dropped until it fits:
/// - a normal message drops low-priority messages first, then, among the normal ones:
///   1. the oldest retained message superseded by a later retained message on the same
///      topic (the broker would keep only the later one anyway);
///   2. else the oldest non-retained message;
///   3. else the oldest message;
///   it is itself always kept;
/// - a low-priority message drops only low-priority messages (the same order); when the
///   normal messages alone fill the queue it is dropped itself. Low-priority messages
///   also hold at most ``lowLimit`` messages and ``lowByteLimit`` bytes.
/// In-flight messages are never dropped, so the totals can exceed the bounds by the
/// in-flight window (and by one message larger than `byteLimit`).
struct MQTTOutgoingQueue {
    /// A queued message with its arrival order, time and priority.
    struct Entry: Equatable {
        var message: MQTTMessage
        let sequence: UInt64
        let enqueuedAt: ContinuousClock.Instant
        /// When the input this message answers reached the process, if the publisher said.
        var origin: ContinuousClock.Instant? = nil
        let priority: MQTTMessagePriority
        /// ``MQTTOutgoingQueue/footprint(of:)`` of `message`.
        let size: Int
    }

    /// The most messages held before dropping.
    let limit: Int
    /// The most bytes (``footprint(of:)``) held before dropping.
    let byteLimit: Int
    /// The most pending low-priority messages (a tenth of `limit`, at least 1).
    let lowLimit: Int
    /// The most bytes of pending low-priority messages (a tenth of `byteLimit`).
    let lowByteLimit: Int
    private var normal = MQTTOutgoingLane()
    private var low = MQTTOutgoingLane()
    private(set) var inFlight: [(mid: Int32, entry: Entry)] = []
    private var inFlightBytes = 0
    private var nextSequence: UInt64 = 0

    /// A queue of at most `limit` messages and `byteLimit` bytes.
    init(limit: Int, byteLimit: Int = .max) {
        self.limit = max(limit, 1)
        self.byteLimit = max(byteLimit, 1)
        lowLimit = max(self.limit / 10, 1)
        lowByteLimit = max(self.byteLimit / 10, 1)
    }

    /// The bytes a message counts against the byte limit: topic, payload and the
    /// variable-length properties (what the broker stores and we keep in memory).
    static func footprint(of message: MQTTMessage) -> Int {
        let properties = message.properties
        var size = message.topic.utf8.count + message.payload.count
        size += properties.correlationData?.count ?? 0
        size += properties.responseTopic?.utf8.count ?? 0
        size += properties.contentType?.utf8.count ?? 0
        for pair in properties.userProperties { size += pair.name.utf8.count + pair.value.utf8.count }
        return size
    }

    /// Messages handed to libmosquitto and not yet confirmed.
    var inFlightCount: Int { inFlight.count }
    /// Messages not yet handed to libmosquitto.
    var pendingCount: Int { normal.pendingCount + low.pendingCount }
    /// Pending plus in flight.
    var count: Int { pendingCount + inFlight.count }
    /// The bytes held, pending plus in flight.
    var bytes: Int { normal.bytes + low.bytes + inFlightBytes }
    /// Whether nothing is pending or in flight.
    var isEmpty: Bool { count == 0 }

    /// Appends `message`; returns the messages dropped to make room (for a low-priority
    /// message that finds the queue full of normal ones: itself).
    mutating func enqueue(
        _ message: MQTTMessage, priority: MQTTMessagePriority = .normal, at now: ContinuousClock.Instant,
        origin: ContinuousClock.Instant? = nil
    ) -> [Entry] {
        let entry = Entry(
            message: message, sequence: nextSequence, enqueuedAt: now, origin: origin, priority: priority,
            size: Self.footprint(of: message))
        nextSequence += 1
        var dropped: [Entry] = []
        if priority == .low {
            while low.pendingCount > 0,
                low.pendingCount >= lowLimit || low.bytes + entry.size > lowByteLimit,
                let victim = low.dropOne()
            {
                dropped.append(victim)
            }
        }
        while isFull(adding: entry.size) {
            if let victim = low.dropOne() {
                dropped.append(victim)
            } else if priority == .normal, let victim = normal.dropOne() {
                dropped.append(victim)
            } else {
                break
            }
        }
        if priority == .low && isFull(adding: entry.size) {
            dropped.append(entry)
            return dropped
        }
        if priority == .low { low.append(entry) } else { normal.append(entry) }
        return dropped
    }

    /// Removes and returns the oldest pending message of the highest priority.
    mutating func popFirst() -> Entry? {
        normal.popFirst() ?? low.popFirst()
    }

    /// Puts `entry` back at the front of its priority (it could not be handed over after all).
    mutating func pushFront(_ entry: Entry) {
        if entry.priority == .low { low.pushFront(entry) } else { normal.pushFront(entry) }
    }

    /// Records that `entry` was handed to libmosquitto as message `mid`.
    mutating func markInFlight(_ entry: Entry, mid: Int32) {
        inFlight.append((mid, entry))
        inFlightBytes += entry.size
    }

    /// Removes and returns the in-flight message with id `mid` (`nil` if unknown).
    mutating func acknowledge(mid: Int32) -> Entry? {
        guard let index = inFlight.firstIndex(where: { $0.mid == mid }) else { return nil }
        let entry = inFlight.remove(at: index).entry
        inFlightBytes -= entry.size
        return entry
    }

    /// Moves every in-flight message back to the front of its priority's pending messages,
    /// in order.
    mutating func requeueInFlight() {
        let entries = inFlight.map(\.entry).sorted { $0.sequence < $1.sequence }
        inFlight.removeAll()
        inFlightBytes = 0
        for entry in entries.reversed() { pushFront(entry) }
    }

    /// The pending messages in sending order (for tests and diagnostics).
    var pendingMessages: [MQTTMessage] { normal.messages + low.messages }

    private func isFull(adding size: Int) -> Bool {
        count >= limit || bytes > byteLimit - min(size, byteLimit)
    }
}

/// The client's ordered, bounded queue of outgoing messages (pure value, no I/O).
///
/// Every message goes through it, connected or not, so delivery order is publish order.
/// A message is *pending* until handed to libmosquitto, then *in flight* (keyed by its
/// libmosquitto message id) until the broker acknowledges it (QoS 1/2) or it is written
/// (QoS 0). When a connection ends, in-flight messages go back to the front, in order, to
/// be sent again on the next connection.
///
/// When the queue holds `limit` messages and another arrives, one pending message is
/// dropped (the new one is always kept), chosen in this order:
/// 1. the oldest retained message superseded by a later retained message on the same
///    topic (the broker would keep only the later one anyway);
/// 2. else the oldest non-retained message;
/// 3. else the oldest message.
/// In-flight messages are never dropped, so the total can exceed `limit` by at most the
/// in-flight window.
struct MQTTOutgoingQueue {
    /// A queued message with its arrival order and time.
    struct Entry: Equatable {
        var message: MQTTMessage
        let sequence: UInt64
        let enqueuedAt: ContinuousClock.Instant
    }

    /// The most messages held before dropping.
    let limit: Int
    private var storage: [Entry?] = []
    private var head = 0
    private(set) var pendingCount = 0
    private var retainedCounts: [String: Int] = [:]
    private var supersededCount = 0
    private(set) var inFlight: [(mid: Int32, entry: Entry)] = []
    private var nextSequence: UInt64 = 0

    init(limit: Int) { self.limit = max(limit, 1) }

    /// Messages handed to libmosquitto and not yet confirmed.
    var inFlightCount: Int { inFlight.count }
    /// Pending plus in flight.
    var count: Int { pendingCount + inFlight.count }
    /// Whether nothing is pending or in flight.
    var isEmpty: Bool { count == 0 }

    /// Appends `message`; returns the messages dropped to make room (oldest first).
    mutating func enqueue(_ message: MQTTMessage, at now: ContinuousClock.Instant) -> [Entry] {
        var dropped: [Entry] = []
        while pendingCount > 0 && count >= limit, let victim = dropOne() { dropped.append(victim) }
        let entry = Entry(message: message, sequence: nextSequence, enqueuedAt: now)
        nextSequence += 1
        storage.append(entry)
        pendingCount += 1
        noteAdded(entry)
        return dropped
    }

    /// Removes and returns the oldest pending message.
    mutating func popFirst() -> Entry? {
        while head < storage.count {
            let slot = storage[head]
            storage[head] = nil
            head += 1
            if let entry = slot {
                pendingCount -= 1
                noteRemoved(entry)
                compactIfNeeded()
                return entry
            }
        }
        compactIfNeeded()
        return nil
    }

    /// Puts `entry` back at the front (it could not be handed over after all).
    mutating func pushFront(_ entry: Entry) {
        if head > 0 {
            head -= 1
            storage[head] = entry
        } else {
            storage.insert(entry, at: 0)
        }
        pendingCount += 1
        noteAdded(entry)
    }

    /// Records that `entry` was handed to libmosquitto as message `mid`.
    mutating func markInFlight(_ entry: Entry, mid: Int32) {
        inFlight.append((mid, entry))
    }

    /// Removes and returns the in-flight message with id `mid` (`nil` if unknown).
    mutating func acknowledge(mid: Int32) -> Entry? {
        guard let index = inFlight.firstIndex(where: { $0.mid == mid }) else { return nil }
        return inFlight.remove(at: index).entry
    }

    /// Moves every in-flight message back to the front of the pending messages, in order.
    mutating func requeueInFlight() {
        let entries = inFlight.map(\.entry).sorted { $0.sequence < $1.sequence }
        inFlight.removeAll()
        for entry in entries.reversed() { pushFront(entry) }
    }

    /// The pending messages, oldest first (for tests and diagnostics).
    var pendingMessages: [MQTTMessage] { storage[head...].compactMap { $0?.message } }

    private mutating func dropOne() -> Entry? {
        var firstNonRetained: Int?
        var first: Int?
        for index in head..<storage.count {
            guard let entry = storage[index] else { continue }
            if first == nil { first = index }
            if entry.message.retain {
                if supersededCount > 0, retainedCounts[entry.message.topic, default: 0] > 1 {
                    return remove(at: index)
                }
            } else if firstNonRetained == nil {
                firstNonRetained = index
                if supersededCount == 0 { break }
            }
        }
        guard let index = firstNonRetained ?? first else { return nil }
        return remove(at: index)
    }

    private mutating func remove(at index: Int) -> Entry? {
        guard let entry = storage[index] else { return nil }
        storage[index] = nil
        pendingCount -= 1
        noteRemoved(entry)
        return entry
    }

    private mutating func noteAdded(_ entry: Entry) {
        guard entry.message.retain else { return }
        let previous = retainedCounts[entry.message.topic, default: 0]
        retainedCounts[entry.message.topic] = previous + 1
        if previous >= 1 { supersededCount += 1 }
    }

    private mutating func noteRemoved(_ entry: Entry) {
        guard entry.message.retain, let previous = retainedCounts[entry.message.topic] else { return }
        if previous <= 1 {
            retainedCounts[entry.message.topic] = nil
        } else {
            retainedCounts[entry.message.topic] = previous - 1
            supersededCount -= 1
        }
    }

    /// Drops the consumed prefix once it is at least half of the storage (moving at most as
    /// many entries as were consumed: amortised O(1) per message), so the storage stays
    /// within about twice the messages actually queued; after a burst (start-up queues
    /// hundreds of retained messages) a large emptied buffer is given back.
    private mutating func compactIfNeeded() {
        if head == storage.count {
            storage.removeAll(keepingCapacity: storage.capacity <= 256)
            head = 0
        } else if head >= 32 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }
}

/// The pending messages of one priority in ``MQTTOutgoingQueue``, oldest first, with the
/// bookkeeping its drop policy needs (which retained topics are superseded).
struct MQTTOutgoingLane {
    private var storage: [MQTTOutgoingQueue.Entry?] = []
    private var head = 0
    private(set) var pendingCount = 0
    /// The sum of the pending entries' sizes.
    private(set) var bytes = 0
    private var retainedCounts: [String: Int] = [:]
    private var supersededCount = 0

    /// The pending messages, oldest first.
    var messages: [MQTTMessage] { storage[head...].compactMap { $0?.message } }

    /// Appends `entry` at the end.
    mutating func append(_ entry: MQTTOutgoingQueue.Entry) {
        storage.append(entry)
        noteAdded(entry)
    }

    /// Removes and returns the oldest entry.
    mutating func popFirst() -> MQTTOutgoingQueue.Entry? {
        while head < storage.count {
            let slot = storage[head]
            storage[head] = nil
            head += 1
            if let entry = slot {
                noteRemoved(entry)
                compactIfNeeded()
                return entry
            }
        }
        compactIfNeeded()
        return nil
    }

    /// Puts `entry` back at the front.
    mutating func pushFront(_ entry: MQTTOutgoingQueue.Entry) {
        if head > 0 {
            head -= 1
            storage[head] = entry
        } else {
            storage.insert(entry, at: 0)
        }
        noteAdded(entry)
    }

    /// Removes and returns the entry the drop policy picks: the oldest superseded
    /// retained message, else the oldest non-retained one, else the oldest.
    mutating func dropOne() -> MQTTOutgoingQueue.Entry? {
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

    private mutating func remove(at index: Int) -> MQTTOutgoingQueue.Entry? {
        guard let entry = storage[index] else { return nil }
        storage[index] = nil
        noteRemoved(entry)
        // Dropping the oldest (the common case under a flood) moves the head on, so the
        // next scan does not walk over the holes again.
        while head < storage.count, storage[head] == nil { head += 1 }
        compactIfNeeded()
        return entry
    }

    private mutating func noteAdded(_ entry: MQTTOutgoingQueue.Entry) {
        pendingCount += 1
        bytes += entry.size
        guard entry.message.retain else { return }
        let previous = retainedCounts[entry.message.topic, default: 0]
        retainedCounts[entry.message.topic] = previous + 1
        if previous >= 1 { supersededCount += 1 }
    }

    private mutating func noteRemoved(_ entry: MQTTOutgoingQueue.Entry) {
        pendingCount -= 1
        bytes -= entry.size
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

import CMainQueue

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A timer of ``MainLoop`` (``MainLoop/after(_:_:)``, ``MainLoop/every(_:startingAfter:_:)``):
/// its action runs on the main actor when it is due, until it is cancelled.
@MainActor
public final class LoopTimer {
    fileprivate let id: UInt64

    fileprivate init(id: UInt64) {
        self.id = id
    }

    /// Whether the action may still run (a one-shot timer that fired is no longer active).
    public var isActive: Bool { LoopTimerQueue.shared?.isScheduled(id) ?? false }

    /// Stops the timer: its action does not run again (not even when it is due in the same
    /// turn of the loop). Idempotent.
    public func cancel() {
        LoopTimerQueue.shared?.cancel(id)
    }
}

extension MainLoop {
    /// Runs `action` once, `delay` seconds from now (0 or less: in the next turn of the loop).
    @discardableResult
    public static func after(_ delay: Double, _ action: @escaping @MainActor () -> Void) -> LoopTimer {
        LoopTimerQueue.instance().schedule(after: delay, interval: nil, action)
    }

    /// ``after(_:_:)`` for a `Duration` (a negative one: in the next turn of the loop).
    @discardableResult
    public static func after(_ delay: Duration, _ action: @escaping @MainActor () -> Void) -> LoopTimer {
        after(delay.inSeconds, action)
    }

    /// Runs `action` every `interval` seconds (at least 1 ms), the first time after
    /// `startingAfter` seconds (default: one interval). A loop that was busy runs a late
    /// timer once, then keeps its rhythm from then on.
    @discardableResult
    public static func every(
        _ interval: Double, startingAfter first: Double? = nil, _ action: @escaping @MainActor () -> Void
    ) -> LoopTimer {
        let period = max(0.001, interval)
        return LoopTimerQueue.instance().schedule(after: first ?? period, interval: period, action)
    }
}

/// Every timer of the loop on one `timerfd` (`CLOCK_MONOTONIC`, armed for the earliest
/// deadline), watched like any descriptor: no Dispatch source and no thread per timer, in the
/// daemon and hosted alike. Deadlines wait in a binary heap (earliest first; equal deadlines
/// in the order they were set); a cancelled timer's entry is dropped when it comes up, and
/// the heap is rebuilt when cancelled entries outnumber live ones, so a timer rescheduled at
/// every event costs bounded memory.
@MainActor
final class LoopTimerQueue {
    private struct Entry {
        var deadline: UInt64
        var sequence: UInt64
        var id: UInt64
    }

    private struct Scheduled {
        var action: @MainActor () -> Void
        var interval: UInt64?
    }

    static var shared: LoopTimerQueue?

    /// The queue, made (and its descriptor registered) on first use.
    static func instance() -> LoopTimerQueue {
        if let shared { return shared }
        let made = LoopTimerQueue()
        shared = made
        return made
    }

    private let descriptor: Int32
    private var watch: DescriptorWatch?
    private var heap: [Entry] = []
    /// The buffer ``fire()`` collects due entries in, kept between fires (no array made per
    /// timer that fires).
    private var dueBuffer: [Entry] = []
    private var scheduled: [UInt64: Scheduled] = [:]
    private var nextID: UInt64 = 1
    private var nextSequence: UInt64 = 0
    private var armedFor: UInt64?

    private init() {
        descriptor = cmq_timerfd_create()
        // Without a timerfd (a kernel without it, no descriptor to spare) nothing would ever
        // fire: a programming-environment failure, not a condition to run on.
        precondition(descriptor >= 0, "MainLoop: timerfd_create failed (errno \(errno))")
        watch = DescriptorWatch(descriptor: descriptor, closesDescriptor: true) { [unowned self] in self.fire() }
    }

    func isScheduled(_ id: UInt64) -> Bool { scheduled[id] != nil }

    /// Entries in the heap, cancelled ones included (for the tests of its bound).
    var entryCount: Int { heap.count }
    /// Timers that may still run.
    var liveCount: Int { scheduled.count }

    func schedule(after delay: Double, interval: Double?, _ action: @escaping @MainActor () -> Void) -> LoopTimer {
        let id = nextID
        nextID += 1
        scheduled[id] = Scheduled(action: action, interval: interval.map(Self.nanoseconds))
        push(deadline: Self.now() &+ Self.nanoseconds(max(0, delay)), id: id)
        return LoopTimer(id: id)
    }

    func cancel(_ id: UInt64) {
        guard scheduled.removeValue(forKey: id) != nil else { return }
        // Cancelled entries stay in the heap until they come up; never more than the live ones.
        if heap.count > 64, heap.count > 2 * scheduled.count { compact() }
    }

    private func push(deadline: UInt64, id: UInt64) {
        heap.append(Entry(deadline: deadline, sequence: nextSequence, id: id))
        nextSequence &+= 1
        siftUp(heap.count - 1)
        if armedFor.map({ deadline < $0 }) ?? true { arm() }
    }

    /// Runs every due timer (those that become due while the others run wait for the next
    /// turn: a timer of 0 s scheduled by an action does not starve the loop), then re-arms.
    private func fire() {
        var expirations: UInt64 = 0
        _ = read(descriptor, &expirations, MemoryLayout<UInt64>.size)
        armedFor = nil
        let now = Self.now()
        // Taken out while the actions run (they may schedule timers, never fire them).
        var due = dueBuffer
        dueBuffer = []
        due.removeAll(keepingCapacity: true)
        defer { dueBuffer = due }
        while let top = heap.first, top.deadline <= now {
            due.append(popFirst())
        }
        for entry in due {
            guard let timer = scheduled[entry.id] else { continue }
            if let interval = timer.interval {
                let next = entry.deadline &+ interval
                push(deadline: next > now ? next : now &+ interval, id: entry.id)
            } else {
                scheduled[entry.id] = nil
            }
            timer.action()
        }
        arm()
    }

    /// Arms the descriptor for the earliest live deadline (disarms it when there is none).
    private func arm() {
        while let top = heap.first, scheduled[top.id] == nil { _ = popFirst() }
        guard let earliest = heap.first?.deadline else {
            if armedFor != nil { setTimer(0) }
            armedFor = nil
            return
        }
        guard armedFor != earliest else { return }
        // An absolute time already past fires at once; 0 would disarm instead.
        setTimer(max(1, earliest))
        armedFor = earliest
    }

    private func setTimer(_ deadline: UInt64) {
        _ = cmq_timerfd_arm(descriptor, deadline)
    }

    private func compact() {
        heap.removeAll { scheduled[$0.id] == nil }
        heap.sort { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }
    }

    // MARK: The heap

    private func popFirst() -> Entry {
        let first = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return first
    }

    private func precedes(_ lhs: Entry, _ rhs: Entry) -> Bool {
        (lhs.deadline, lhs.sequence) < (rhs.deadline, rhs.sequence)
    }

    private func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(heap[child], heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < heap.count, precedes(heap[left], heap[first]) { first = left }
            if right < heap.count, precedes(heap[right], heap[first]) { first = right }
            guard first != parent else { return }
            heap.swapAt(parent, first)
            parent = first
        }
    }

    // MARK: Time

    private static func now() -> UInt64 {
        cmq_monotonic_ns()
    }

    private static func nanoseconds(_ seconds: Double) -> UInt64 {
        // A day at most: a longer wait is a bug, and the sum must not overflow.
        UInt64(min(max(0, seconds), 86_400) * 1e9)
    }
}

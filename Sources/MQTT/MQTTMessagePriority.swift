/// How much a queued outgoing message matters when the queue is full
/// (``MQTTClient/publish(_:priority:)``).
///
/// ``normal`` messages (state, moves, availability) are never dropped to make room for a
/// ``low`` one, and are sent first: a flood of low-priority messages (answers to bad
/// commands) can neither evict nor delay them. Low-priority messages also hold at most a
/// tenth of the queue's message and byte limits.
public enum MQTTMessagePriority: Sendable, Hashable, Comparable, CaseIterable {
    /// Dropped first, sent after every pending normal message (responses, diagnostics).
    case low
    /// The default: what subscribers must not miss.
    case normal
}

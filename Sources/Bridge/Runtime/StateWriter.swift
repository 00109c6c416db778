import Dispatch
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Saves state files on a background queue, so that disk latency never holds up the event
/// loop or the publication of a move.
///
/// A crash-safe replace costs two `fsync`s: about 2 ms on a VM disk, tens of milliseconds on
/// an SD card. Done on the main thread before publishing, it delayed every move by that much
/// and stalled every other board meanwhile; so did encoding the whole game as JSON. Here
/// ``save(_:as:)`` only hands the value over; one serial queue encodes it and writes it with
/// ``StateStore/write(_:as:)`` (temporary file, `fsync`, `rename`, directory `fsync`). Saves
/// of the same name that pile up while a write is under way are coalesced: only the newest
/// value is encoded and written, and the files always end at the latest state.
/// ``flush()`` waits until everything handed over is on disk (shutdown, tests).
///
/// The window this opens is the write itself: a bridge killed within those milliseconds
/// restarts from the previous state, and the board's own position brings the last move back
/// when the session reconciles (the move is detected again, with the same ply).
public final class StateWriter: Sendable {
    /// The store written to (and read from at start-up).
    public let store: StateStore
    private let queue = DispatchQueue(label: "boardbridge.state", qos: .utility)
    private let pending = Mutex<[String: @Sendable () throws -> Data]>([:])
    private let onError: @Sendable (String, String) -> Void

    /// A writer for `store`; `onError` receives the file name and the reason of every failed
    /// encoding or write (on the writer's queue).
    public init(store: StateStore, onError: @escaping @Sendable (String, String) -> Void) {
        self.store = store
        self.onError = onError
    }

    /// Schedules `value`, encoded as JSON, to replace the file `name`; returns at once.
    public func save(_ value: some Encodable & Sendable, as name: String) {
        schedule(name) { try JSONEncoder().encode(value) }
    }

    /// Schedules `data` to replace the file `name`; returns at once.
    public func save(_ data: Data, as name: String) {
        schedule(name) { data }
    }

    private func schedule(_ name: String, _ content: @escaping @Sendable () throws -> Data) {
        let isFirst = pending.withLock { pending in
            let isFirst = pending[name] == nil
            pending[name] = content
            return isFirst
        }
        // A write of `name` already scheduled picks up the newest content when it runs.
        guard isFirst else { return }
        queue.async { [self] in
            guard let content = pending.withLock({ $0.removeValue(forKey: name) }) else { return }
            do {
                try store.write(try content(), as: name)
            } catch {
                onError(name, "\(error)")
            }
        }
    }

    /// Waits until every state handed to ``save(_:as:)`` so far is written.
    public func flush() {
        queue.sync {}
    }
}

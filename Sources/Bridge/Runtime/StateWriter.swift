import Dispatch
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Saves state files so that a published move is never lost or repeated when the bridge
/// crashes, while the disk's flush stays off the event loop.
///
/// ``save(_:as:)`` encodes the value and replaces the file at once — a temporary file, then
/// `rename(2)` — so the new state is in the kernel before the caller publishes anything: a
/// bridge that is killed restarts from it. The two `fsync`s that make the file survive a
/// power cut (about 2 ms on a VM disk, tens of milliseconds on an SD card; done on the main
/// thread they stalled every board) run on one background queue, coalesced per file.
/// ``flush()`` waits for them (shutdown, tests). The window this leaves is a power cut within
/// those milliseconds, which loses the last change; the board's own position then brings the
/// move back when the session reconciles.
public final class StateWriter: Sendable {
    /// The store written to (and read from at start-up).
    public let store: StateStore
    private let queue = DispatchQueue(label: "boardbridge.state", qos: .utility)
    private let unsynced = Mutex<Set<String>>([])
    private let onError: @Sendable (String, String) -> Void

    /// A writer for `store`; `onError` receives the file name and the reason of every failed
    /// encoding, write or flush (on the caller's thread, or the writer's queue for a flush).
    public init(store: StateStore, onError: @escaping @Sendable (String, String) -> Void) {
        self.store = store
        self.onError = onError
    }

    /// Replaces the file `name` with `value` encoded as JSON, now; flushed to disk soon after.
    public func save(_ value: some Encodable, as name: String) {
        let data: Data
        do {
            data = try JSONEncoder().encode(value)
        } catch {
            onError(name, "\(error)")
            return
        }
        save(data, as: name)
    }

    /// Replaces the file `name` with `data`, now; flushed to disk soon after.
    public func save(_ data: Data, as name: String) {
        do throws(StateStoreError) {
            try store.write(data, as: name, durably: false)
        } catch {
            onError(name, "\(error)")
            return
        }
        // A flush of `name` already scheduled covers this content too.
        guard unsynced.withLock({ $0.insert(name).inserted }) else { return }
        queue.async { [self] in
            unsynced.withLock { _ = $0.remove(name) }
            do throws(StateStoreError) {
                try store.flush(name)
            } catch {
                onError(name, "\(error)")
            }
        }
    }

    /// Waits until every file saved so far is flushed to disk.
    public func flush() {
        queue.sync {}
    }
}

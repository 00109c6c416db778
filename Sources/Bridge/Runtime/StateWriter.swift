import Dispatch
import Kernel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Saves state files so that a published move is never lost or repeated when the bridge
/// crashes, at a cost that does not grow with the game and with the disk's flush off the
/// event loop.
///
/// A board's session is kept as a snapshot file (`<id>.json`) and a journal of the changes
/// since (`<id>.journal`, one ``Kernel/SessionJournalEntry`` per line).
/// ``saveSession(_:as:)`` appends a move, takeback or clock change to the journal with one
/// `write(2)` before the caller publishes anything, so a killed bridge restarts from it;
/// rewriting and renaming the whole snapshot for every move cost about a millisecond (more
/// as the game grew) on the path of every move. A new game, a set-up position, or a journal
/// of ``journalLimit`` entries writes the whole snapshot again (temporary file, `rename(2)`)
/// and empties the journal. ``restoreSession(_:)`` reads both back.
///
/// The `fsync`s that make the files survive a power cut (milliseconds on a VM disk, tens of
/// milliseconds on an SD card; done on the main thread they stalled every board) run on one
/// background queue. Its jobs share nothing with the main actor: each gets the file to flush
/// and reports back with a main-queue block; a file changed while its flush runs is flushed
/// again when that one reports (so one flush per file is in flight, however many saves).
/// ``flush()`` does what is outstanding at once (shutdown, tests). A power cut within those
/// milliseconds can lose the last change (a torn last journal line is ignored); the board's
/// own position then brings the move back when the session reconciles.
///
/// Main-actor isolated like the sessions that use it (DESIGN.md §2: no locks in `Bridge`).
@MainActor
public final class StateWriter {
    /// The store written to (and read from at start-up).
    nonisolated public let store: StateStore
    /// How many journal entries a board's journal holds before the snapshot is rewritten.
    public let journalLimit: Int
    private let queue = DispatchQueue(label: "boardbridge.state", qos: .utility)
    private var journals: [String: Journal] = [:]
    /// Flushes held back by `deferringSync` until ``startDeferredSyncs()``.
    private var deferred: [Pending] = []
    /// Flushes handed to `queue` that have not reported back, with the number of the hand-over.
    private var inFlight: [Pending: Int] = [:]
    /// Files saved again while their flush was in flight.
    private var dirty: Set<Pending> = []
    /// Flushes handed to the background queue so far.
    private(set) var handOvers = 0
    /// Whether no flush is outstanding: none running, none due again, none deferred.
    var isSettled: Bool { inFlight.isEmpty && dirty.isEmpty && deferred.isEmpty }
    private let onError: @MainActor (String, String) -> Void

    private struct Journal {
        var cursor: SessionJournalCursor
        var entries: Int
        /// Opened at the first append or truncation.
        var file: StateStore.JournalFile?
    }

    private enum Pending: Hashable, Sendable {
        case file(String)
        case journal(String, StateStore.JournalFile)
    }

    /// A writer for `store`; `onError` receives the file name and the reason of every failed
    /// encoding, write or flush, and of every journal line skipped while restoring.
    public init(
        store: StateStore, journalLimit: Int = 256, onError: @escaping @MainActor (String, String) -> Void
    ) {
        self.store = store
        self.journalLimit = max(1, journalLimit)
        self.onError = onError
    }

    deinit {
        // Closed after the flushes already handed over (which may use them); nothing waits.
        let files = journals.values.compactMap(\.file)
        if !files.isEmpty { queue.async { for file in files { file.close() } } }
    }

    // MARK: Sessions

    /// Saves `snapshot` as the session `name`: one journal line when it follows the state
    /// saved before, else the whole snapshot. In the kernel when this returns; flushed to disk
    /// soon after — with `deferringSync`, only once ``startDeferredSyncs()`` is called: handing
    /// the flush to the background thread wakes it, about 100 µs on a VM, which a caller about
    /// to publish a move does after publishing.
    public func saveSession(_ snapshot: SessionSnapshot, as name: String, deferringSync: Bool = false) {
        var journal = journals[name]
        if var current = journal, current.entries < journalLimit, let entry = current.cursor.entry(to: snapshot) {
            do {
                let file = try current.file ?? store.openJournal(name)
                current.file = file
                let line: Data
                if let written = entry.jsonLine() {
                    line = Data(written)
                } else {
                    line = try JSONEncoder().encode(entry) + Data([UInt8(ascii: "\n")])
                }
                try file.append(line)
                current.cursor = SessionJournalCursor(at: snapshot, sequence: entry.sequence)
                current.entries += 1
                journals[name] = current
                scheduleSync(.journal(name, file), deferred: deferringSync)
                return
            } catch {
                onError(name, "\(error)")
                journal = current
            }
        }
        // The whole snapshot, numbered with the last entry it includes; the journal is emptied
        // after the rename, and entries a crash leaves behind are no newer than the snapshot.
        let sequence = journal?.cursor.sequence ?? 0
        var whole = snapshot
        whole.sequence = sequence
        guard let data = encode(whole, as: name), replace(data, as: name, deferringSync: deferringSync) else {
            return
        }
        do {
            let file = try journal?.file ?? store.openJournal(name)
            try file.truncate()
            journals[name] = Journal(
                cursor: SessionJournalCursor(at: whole, sequence: sequence), entries: 0, file: file)
        } catch {
            // Not journalled further (the next save writes the whole snapshot again).
            onError(name, "\(error)")
            journals[name] = nil
            if let file = journal?.file { closeLater(file, of: name) }
        }
    }

    /// The session saved as `name` — its snapshot with the journal replayed — or `nil` when
    /// there is none. Journal lines that cannot be read are reported through `onError` and
    /// end the replay (a torn last line, left by a power cut, silently). Later saves of `name`
    /// continue this journal.
    public func restoreSession(_ name: String) throws -> SessionSnapshot? {
        guard let data = try store.read(name) else { return nil }
        var snapshot = try JSONDecoder().decode(SessionSnapshot.self, from: data)
        var sequence = snapshot.sequence ?? 0
        var entries = 0
        if let journal = try store.readJournal(name) {
            let lines = journal.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            // The last piece follows the last newline: empty, or a line whose write was torn.
            for (index, line) in lines.dropLast().enumerated() {
                do {
                    let entry = try JSONDecoder().decode(SessionJournalEntry.self, from: Data(line))
                    guard entry.sequence > sequence else { continue }
                    snapshot = try snapshot.applying(entry)
                    sequence = entry.sequence
                    entries += 1
                } catch {
                    onError(name, "journal line \(index + 1) skipped with the rest: \(error)")
                    break
                }
            }
        }
        let restored = snapshot
        let cursor = SessionJournalCursor(at: restored, sequence: sequence)
        if let file = journals[name]?.file { closeLater(file, of: name) }
        journals[name] = Journal(cursor: cursor, entries: entries, file: nil)
        return restored
    }

    // MARK: Whole files

    /// Replaces the file `name` with `value` encoded as JSON, now; flushed to disk soon after.
    public func save(_ value: some Encodable, as name: String) {
        guard let data = encode(value, as: name) else { return }
        save(data, as: name)
    }

    /// `value` as JSON, or `nil` with the failure reported for the file `name`.
    private func encode(_ value: some Encodable, as name: String) -> Data? {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            onError(name, "\(error)")
            return nil
        }
    }

    /// Replaces the file `name` with `data`, now; flushed to disk soon after. Returns whether
    /// the file was replaced (a failure is reported).
    @discardableResult
    public func save(_ data: Data, as name: String) -> Bool {
        replace(data, as: name, deferringSync: false)
    }

    private func replace(_ data: Data, as name: String, deferringSync: Bool) -> Bool {
        do throws(StateStoreError) {
            try store.write(data, as: name, durably: false)
        } catch {
            onError(name, "\(error)")
            return false
        }
        scheduleSync(.file(name), deferred: deferringSync)
        return true
    }

    /// Starts the flushes that saves with `deferringSync` left for later.
    public func startDeferredSyncs() {
        guard !deferred.isEmpty else { return }
        let waiting = deferred
        deferred.removeAll(keepingCapacity: true)
        for pending in waiting { scheduleSync(pending) }
    }

    /// Flushes every file saved so far to disk before returning (deferred flushes included;
    /// failures are reported before it returns).
    public func flush() {
        // What was handed over has run (and closes of replaced journals are done); what it
        // reported is still on its way to the main queue, so everything outstanding is
        // flushed once more here, and those late reports are ignored.
        queue.sync {}
        var outstanding = Set(inFlight.keys).union(dirty)
        for pending in deferred { outstanding.insert(pending) }
        inFlight.removeAll()
        dirty.removeAll()
        deferred.removeAll()
        for pending in outstanding {
            if let failure = Self.sync(pending, in: store) { onError(name(of: pending), failure) }
        }
    }

    private func scheduleSync(_ pending: Pending, deferred isDeferred: Bool = false) {
        if isDeferred {
            deferred.append(pending)
        } else if inFlight[pending] != nil {
            // Flushed again when the running flush reports back.
            dirty.insert(pending)
        } else {
            handOver(pending)
        }
    }

    private func handOver(_ pending: Pending) {
        handOvers += 1
        let number = handOvers
        inFlight[pending] = number
        let store = store
        queue.async { [weak self] in
            let failure = Self.sync(pending, in: store)
            DispatchQueue.main.async {
                MainActor.assumeIsolated { self?.synced(pending, number: number, failure: failure) }
            }
        }
    }

    /// A flush reported back: done, or due again when the file changed meanwhile.
    private func synced(_ pending: Pending, number: Int, failure: String?) {
        // A report from before ``flush()`` (which did that flush itself) is ignored.
        guard inFlight[pending] == number else { return }
        inFlight[pending] = nil
        if let failure { onError(name(of: pending), failure) }
        if dirty.remove(pending) != nil { handOver(pending) }
    }

    /// Flushes one file; the failure's description, or `nil`. Runs on the writer's queue (or
    /// in ``flush()``).
    private nonisolated static func sync(_ pending: Pending, in store: StateStore) -> String? {
        do throws(StateStoreError) {
            switch pending {
            case .file(let name): try store.flush(name)
            case .journal(_, let file): try file.sync()
            }
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Flushes and closes `file` after the flushes handed over so far (which may use it); no
    /// flush of it is pending here afterwards.
    private func closeLater(_ file: StateStore.JournalFile, of name: String) {
        let pending = Pending.journal(name, file)
        inFlight[pending] = nil
        dirty.remove(pending)
        deferred.removeAll { $0 == pending }
        queue.async {
            _ = try? file.sync()
            file.close()
        }
    }

    private func name(of pending: Pending) -> String {
        switch pending {
        case .file(let name), .journal(let name, _): name
        }
    }
}

import Dispatch
public import FoundationEssentials
public import Kernel

/// Saves state files so that a published move is never lost or repeated when the bridge
/// crashes, at a cost that does not grow with the game and with the disk's flush off the
/// event loop.
///
/// A board's session is kept as a snapshot file (`<id>.json`) and a journal of the changes
/// since (`<id>.journal`, one ``Kernel/SessionJournalEntry`` per line, each line framed with
/// its length and CRC-32: ``Kernel/SessionJournalLine``). ``saveSession(_:as:deferringSync:)``
/// appends a move, takeback or clock change to the journal with one `write(2)` before the
/// caller publishes anything, so a killed bridge restarts from it; rewriting and renaming
/// the whole snapshot for every move cost about a millisecond (more as the game grew) on
/// the path of every move. A new game, a set-up position, or a journal of ``journalLimit``
/// entries writes the whole snapshot again (temporary file, `rename(2)`) and empties the
/// journal. ``restoreSession(_:rebuildingOnto:)`` reads both back (see there for what it
/// does with damaged files: nothing persisted is ever deleted or emptied unread).
///
/// The `fsync`s that make the files survive a power cut (milliseconds on a VM disk, tens of
/// milliseconds on an SD card; done on the main thread they stalled every board) run on one
/// background queue. Its jobs share nothing with the main actor: each gets the file to flush
/// and reports back with a main-queue block; a file changed while its flush runs is flushed
/// again when that one reports (so one flush per file is in flight, however many saves).
/// ``flush()`` does what is outstanding at once (shutdown, tests). A power cut within those
/// milliseconds can lose the last change (its torn line is cut off before the next append);
/// the board's own position then brings the move back when the session reconciles.
///
/// A save that fails (disk full, read-only directory) is reported through `onError` and
/// tried again with the next save, which then carries every change since the last one that
/// was written; a write that failed part-way is cut off before the next append.
///
/// Main-actor isolated like the sessions that use it (DESIGN.md §2: no locks in `Bridge`).
@MainActor
public final class StateWriter {
    /// The store written to (and read from at start-up).
    nonisolated public let store: StateStore
    /// How many journal entries a board's journal holds before the snapshot is rewritten.
    public let journalLimit: Int
    private let queue = DispatchQueue(label: "boardbridge.state", qos: .utility)
    /// Each board's journal (internal for the restore, `StateWriter+Restore.swift`).
    var journals: [String: Journal] = [:]
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
    let onError: @MainActor (String, String) -> Void
    let onWarning: @MainActor (String, String) -> Void

    /// What the writer knows of a board's journal.
    struct Journal {
        /// Whether the state last saved is on disk (snapshot and journal), so that the next
        /// change can be appended as an entry; `false`: the next save writes the whole snapshot.
        var isBased: Bool
        /// A change whose save failed altogether: the next save carries it as well.
        var unsaved: SessionChange?
        /// The sequence number of the last entry saved (or included in the snapshot).
        var sequence: Int
        /// Entries in the journal since its snapshot.
        var entries: Int
        /// Opened at the first append or truncation.
        var file: StateStore.JournalFile?
        /// Whether the journal holds lines a restore could not use: it is moved aside, not
        /// emptied, once a whole snapshot no longer needs it, and nothing is appended to it.
        var keepsEvidence = false
    }

    private enum Pending: Hashable, Sendable {
        case file(String)
        case journal(String, StateStore.JournalFile)
    }

    /// A writer for `store`; `onError` receives the file name and the reason of every failed
    /// encoding, write or flush, and of everything a restore could not use; `onWarning` the
    /// repairs that lost nothing readable (a torn last line cut off, a damaged file kept
    /// under another name).
    public init(
        store: StateStore, journalLimit: Int = 256, onError: @escaping @MainActor (String, String) -> Void,
        onWarning: @escaping @MainActor (String, String) -> Void = { _, _ in }
    ) {
        self.store = store
        self.journalLimit = max(1, journalLimit)
        self.onError = onError
        self.onWarning = onWarning
    }

    deinit {
        // Closed after the flushes already handed over (which may use them); nothing waits.
        let files = journals.values.compactMap(\.file)
        if !files.isEmpty { queue.async { for file in files { file.close() } } }
    }

    // MARK: Sessions

    /// Saves `snapshot` as the session `name`: one journal line made of `change` (what the
    /// kernel changed since the state saved before, ``Kernel/SessionChange``), else the whole
    /// snapshot. In the kernel when this returns; flushed to disk soon after — with
    /// `deferringSync`, only once ``startDeferredSyncs()`` is called: handing the flush to the
    /// background thread wakes it, about 100 µs on a VM, which a caller about to publish a
    /// move does after publishing.
    public func saveSession(
        _ snapshot: SessionSnapshot, change: SessionChange, as name: String, deferringSync: Bool = false
    ) {
        var journal = journals[name]
        let change = journal?.unsaved.map { $0.followed(by: change) } ?? change
        if var current = journal, current.isBased, !current.keepsEvidence, current.entries < journalLimit,
            let entry = SessionJournalEntry(sequence: current.sequence + 1, change: change, after: snapshot)
        {
            do {
                let file = try current.file ?? openJournal(name)
                current.file = file
                try file.append(Data(try entry.journalLine()))
                current.sequence = entry.sequence
                current.entries += 1
                current.unsaved = nil
                journals[name] = current
                scheduleSync(.journal(name, file), deferred: deferringSync)
                return
            } catch {
                onError(name, "\(error)")
                // A write that failed part-way may have left a fragment: the journal is
                // opened again for the next append, which cuts it off first.
                if let file = current.file { closeLater(file, of: name) }
                current.file = nil
                journals[name] = current
                journal = current
            }
        }
        // Not saved at all: the next save carries this change too.
        if !writeWhole(snapshot, as: name, after: journal, deferringSync: deferringSync) {
            journals[name]?.unsaved = change
        }
    }

    /// Writes `snapshot` whole, numbered with the last entry it includes, then empties the
    /// journal (or moves it aside, when it holds lines a restore could not use). Entries a
    /// crash leaves behind in between are no newer than the snapshot and are skipped.
    @discardableResult
    func writeWhole(
        _ snapshot: SessionSnapshot, as name: String, after journal: Journal?, deferringSync: Bool
    ) -> Bool {
        let sequence = journal?.sequence ?? 0
        var whole = snapshot
        whole.sequence = sequence
        let keepsEvidence = journal?.keepsEvidence == true
        guard let data = encode(whole, as: name) else { return false }
        if keepsEvidence {
            // On disk before the journal goes: the state must not depend on it any more.
            do throws(StateStoreError) {
                try store.write(data, as: name, durably: true)
            } catch {
                onError(name, "\(error)")
                return false
            }
        } else {
            guard replace(data, as: name, deferringSync: deferringSync) else { return false }
        }
        do throws(StateStoreError) {
            if keepsEvidence {
                if let file = journal?.file { closeLater(file, of: name) }
                if let moved = try store.moveAside(store.journalPath(for: name)) {
                    onWarning(name, "the journal's unusable lines are kept in \(moved)")
                }
                journals[name] = Journal(isBased: true, sequence: sequence, entries: 0, file: nil)
            } else {
                let file: StateStore.JournalFile
                if let open = journal?.file { file = open } else { file = try openJournal(name) }
                try file.truncate()
                journals[name] = Journal(isBased: true, sequence: sequence, entries: 0, file: file)
            }
        } catch {
            // Not journalled further: the next save writes the whole snapshot again (with
            // the same sequence number, so the entries still in the journal stay skipped).
            onError(name, "\(error)")
            if !keepsEvidence, let file = journal?.file { closeLater(file, of: name) }
            journals[name] = Journal(
                isBased: false, sequence: sequence, entries: 0, file: nil, keepsEvidence: keepsEvidence)
        }
        return true
    }

    /// The journal of `name` opened for appending, its torn last line (if any) cut off and
    /// reported.
    func openJournal(_ name: String) throws(StateStoreError) -> StateStore.JournalFile {
        let (file, cut) = try store.openJournal(name)
        if cut > 0 {
            onWarning(name, "the journal's last line was incomplete (a torn or failed write): \(cut) bytes cut off")
        }
        return file
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
    func closeLater(_ file: StateStore.JournalFile, of name: String) {
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

/// The saved games (the journal): at shutdown, once every session has saved its game, all of
/// it is on disk before the process ends.
extension StateWriter: BridgeHandler {
    func stop() { flush() }
}

import Chess
import FoundationEssentials
public import Kernel

extension StateWriter {
    /// The session saved as `name` — its snapshot with the journal replayed
    /// (``Kernel/SessionJournalReplay``) — or `nil` when nothing usable was saved. Later
    /// saves of `name` continue from it. Damaged files cost as little as they can, and
    /// nothing is deleted or emptied unread:
    ///
    /// - a torn last journal line (a crash, a power cut, a full disk) is cut off, with a
    ///   warning, and the lines before it are restored;
    /// - a journal line that cannot be read or applied is reported and skipped; the lines
    ///   after it are still read and applied where they provably follow. The restored state
    ///   is then written as a whole snapshot and the journal moved aside
    ///   (`<id>.journal.corrupt-<time>`), so nothing is ever appended after a bad line;
    /// - a snapshot that cannot be read (corrupt, empty) is moved aside
    ///   (`<id>.json.corrupt-<time>`) and the game rebuilt from the journal onto `fresh`
    ///   (the session a new game would start with) as far as the journal allows: all of it
    ///   when the journal still starts at the game's first move. The rebuilt game is saved
    ///   whole at once; when nothing could be rebuilt, `nil` (the caller starts afresh) and
    ///   the journal is moved aside at the first save.
    public func restoreSession(_ name: String, rebuildingOnto fresh: SessionSnapshot? = nil) -> SessionSnapshot? {
        if let file = journals[name]?.file { closeLater(file, of: name) }
        journals[name] = nil
        let snapshot = readSnapshot(name)
        let journal = readJournal(name)
        guard snapshot.value != nil || !journal.bytes.isEmpty || journal.keepsEvidence else { return nil }
        let base = snapshot.value ?? fresh ?? GameSession(game: Game(), inputPath: .identity).snapshot(at: 0)
        let replay = SessionJournalReplay(
            journal: journal.bytes, onto: base, sequence: snapshot.value.map { $0.sequence ?? 0 })
        for skipped in replay.skipped { onError(name, "\(skipped)") }
        let keepsEvidence = journal.keepsEvidence || !replay.skipped.isEmpty
        let applied = replay.sequence ?? 0
        // Any number a line of the old journal carries is below those written from now on.
        let sequence = max(applied, replay.highestSequence ?? 0)
        if snapshot.value != nil, !snapshot.lost, !keepsEvidence {
            var file: StateStore.JournalFile?
            if replay.tornLength > 0 {
                // Cut off now (and reported), not at the first append.
                do throws(StateStoreError) { file = try openJournal(name) } catch { onError(name, "\(error)") }
            }
            journals[name] = Journal(
                isBased: replay.snapshot.version == SessionSnapshot.formatVersion, sequence: applied,
                entries: replay.applied, file: file)
            return replay.snapshot
        }
        var repair = Journal(isBased: false, sequence: sequence, entries: 0, file: nil, keepsEvidence: keepsEvidence)
        journals[name] = repair
        guard snapshot.value != nil || replay.applied > 0 else {
            if !journal.bytes.isEmpty {
                onError(name, "no journal entry follows a new game: the saved game cannot be rebuilt")
            }
            return nil
        }
        if snapshot.value == nil {
            onWarning(name, "game rebuilt from the journal: \(replay.snapshot.game.moves.count) plies")
        }
        // Whole at once: the restored state no longer depends on what was skipped.
        repair.sequence = sequence
        writeWhole(replay.snapshot, as: name, after: repair, deferringSync: false)
        return replay.snapshot
    }

    /// The snapshot of `name`; `lost` when there was one that could not be used (it is then
    /// moved aside).
    private func readSnapshot(_ name: String) -> (value: SessionSnapshot?, lost: Bool) {
        let data: Data
        do throws(StateStoreError) {
            guard let read = try store.read(name) else { return (nil, false) }
            data = read
        } catch {
            onError(name, "\(error)")
            moveAside(store.path(for: name), of: name, what: "the saved game")
            return (nil, true)
        }
        do {
            return (try JSONDecoder().decode(SessionSnapshot.self, from: data), false)
        } catch {
            onError(name, "the saved game cannot be read (\(data.count) bytes): \(error)")
            moveAside(store.path(for: name), of: name, what: "the saved game")
            return (nil, true)
        }
    }

    /// The bytes of the journal of `name`; `keepsEvidence` when it could not be read (and
    /// could not be moved aside either).
    private func readJournal(_ name: String) -> (bytes: [UInt8], keepsEvidence: Bool) {
        do throws(StateStoreError) {
            return (Array(try store.readJournal(name) ?? Data()), false)
        } catch {
            onError(name, "\(error)")
            return ([], !moveAside(store.journalPath(for: name), of: name, what: "the journal"))
        }
    }

    /// Moves the file at `path` aside, reporting where; whether it is out of the way.
    @discardableResult
    private func moveAside(_ path: String, of name: String, what: String) -> Bool {
        do throws(StateStoreError) {
            if let moved = try store.moveAside(path) { onWarning(name, "\(what) is kept in \(moved)") }
            return true
        } catch {
            onError(name, "\(error)")
            return false
        }
    }
}

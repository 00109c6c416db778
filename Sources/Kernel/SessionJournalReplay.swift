/// A board's journal read back (``SessionJournalLine`` per line) and replayed onto the
/// snapshot it follows: what a restart restores.
///
/// Every line is read on its own, so a bad line never ends the reading: the entries after
/// it are still tried. An entry is applied only where it is known to follow the state
/// reached so far (its ``SessionJournalEntry/sequence`` is the next one, or it keeps no
/// earlier move, or nothing is known yet because the snapshot was lost), and applying
/// replays its moves and checks each against the position it recorded
/// (``SessionSnapshot/applying(_:)``). The result is therefore always the saved game or a
/// prefix of it, never a game with a move that was not played; what was skipped is listed.
/// The bytes after the last newline (a torn write) are not read; ``wholeLength`` says where
/// a writer must cut the file before appending.
public struct SessionJournalReplay: Sendable {
    /// A line that was not applied, and why.
    public struct SkippedLine: Equatable, Sendable, CustomStringConvertible {
        /// The line's number, from 1.
        public var line: Int
        /// Why it was skipped.
        public var reason: String

        /// A readable message.
        public var description: String { "journal line \(line) skipped: \(reason)" }
    }

    /// The state restored.
    public private(set) var snapshot: SessionSnapshot
    /// The sequence number of the last entry applied (or of the snapshot); `nil` when the
    /// snapshot was lost and no entry could be applied.
    public private(set) var sequence: Int?
    /// The highest sequence number of any entry read (applied or not).
    public private(set) var highestSequence: Int?
    /// How many entries were applied.
    public private(set) var applied = 0
    /// The lines that were not applied (torn tail excluded), in order.
    public private(set) var skipped: [SkippedLine] = []
    /// The number of bytes up to and including the last newline.
    public let wholeLength: Int
    /// The number of bytes after it: a line whose write was torn (not read).
    public var tornLength: Int { totalLength - wholeLength }
    private let totalLength: Int

    /// Replays `journal` onto `snapshot`, which includes the entries up to `sequence`
    /// (`nil`: unknown, the snapshot is a fresh game standing in for a lost one).
    public init(journal: [UInt8], onto snapshot: SessionSnapshot, sequence: Int?) {
        self.snapshot = snapshot
        self.sequence = sequence
        totalLength = journal.count
        wholeLength = (journal.lastIndex(of: UInt8(ascii: "\n")) ?? -1) + 1
        var start = 0
        var number = 0
        while start < wholeLength {
            number += 1
            let end = journal[start..<wholeLength].firstIndex(of: UInt8(ascii: "\n")) ?? wholeLength
            read(journal[start..<end], number: number)
            start = end + 1
        }
    }

    private mutating func read(_ line: ArraySlice<UInt8>, number: Int) {
        guard !line.isEmpty else { return }
        switch SessionJournalLine.parse(line) {
        case .invalid(let reason):
            skipped.append(SkippedLine(line: number, reason: reason))
        case .entry(let entry, _, let offset):
            if offset > 0 {
                skipped.append(
                    SkippedLine(
                        line: number, reason: "its first \(offset) bytes (garbage; the entry after them was read)"))
            }
            highestSequence = max(highestSequence ?? entry.sequence, entry.sequence)
            apply(entry, line: number)
        }
    }

    private mutating func apply(_ entry: SessionJournalEntry, line: Int) {
        if let sequence {
            // Already in the snapshot (left by a crash between its rename and the journal's
            // truncation), or a line repeated.
            if entry.sequence <= sequence { return }
            guard entry.sequence == sequence + 1 || entry.keptPlies == 0 else {
                skipped.append(
                    SkippedLine(
                        line: line, reason: "entry \(entry.sequence) does not follow entry \(sequence)"))
                return
            }
        }
        do {
            snapshot = try snapshot.applying(entry)
            sequence = entry.sequence
            applied += 1
        } catch {
            skipped.append(SkippedLine(line: line, reason: "entry \(entry.sequence): \(error)"))
        }
    }
}

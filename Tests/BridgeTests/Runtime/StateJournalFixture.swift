import Bridge
import Chess
import Foundation
import Kernel
import Synchronization
import TestSupport

/// What the journal tests share: a game to save ply by ply, writers on one temporary
/// directory, and what they reported.
@MainActor
final class StateJournalFixture {
    /// Twenty plies of an Italian game, SAN.
    static let opening =
        "e4 e5 Nf3 Nc6 Bc4 Nf6 d3 Bc5 c3 d6 O-O O-O Nbd2 a6 Bb3 Ba7 h3 h6 Re1 Re8".split(separator: " ")
        .map(String.init)

    /// Messages a writer reported, in order.
    final class Reports: Sendable {
        private let list = Mutex<[String]>([])
        /// Everything reported so far.
        var all: [String] { list.withLock { $0 } }
        func append(_ message: String) { list.withLock { $0.append(message) } }
        func removeAll() { list.withLock { $0.removeAll() } }
    }

    let directory: URL
    let failures = Reports()
    let warnings = Reports()
    private var snapshots: [Int: SessionSnapshot] = [:]

    /// A fixture on a new temporary directory; `inMemory`: on `/dev/shm` where there is
    /// one (the property tests restore thousands of times; the flushes cost nothing there).
    init(inMemory: Bool = false) throws {
        let shm = URL(fileURLWithPath: "/dev/shm")
        if inMemory, FileManager.default.isWritableFile(atPath: shm.path) {
            directory = shm.appendingPathComponent("boardbridge-journal-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } else {
            directory = try TestTools.temporaryDirectory("journal")
        }
    }

    isolated deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The session after the first `plies` moves of the opening, saved at `plies` seconds.
    /// Saves the game after `plies` with `writer` as the kernel would after the game of
    /// `previous` plies: its change keeps the fewer of the two.
    func save(
        _ writer: StateWriter, plies: Int, after previous: Int, as name: String = "board", deferringSync: Bool = false
    ) throws {
        writer.saveSession(
            try snapshot(plies: plies), change: SessionChange(keptPlies: min(previous, plies)), as: name,
            deferringSync: deferringSync)
    }

    func snapshot(plies: Int) throws -> SessionSnapshot {
        if let known = snapshots[plies] { return known }
        var game = Game()
        for (index, san) in Self.opening.prefix(plies).enumerated() {
            try game.play(san: san, timestamp: Double(index))
        }
        let snapshot = GameSession(game: game, inputPath: .identity).snapshot(at: Double(plies))
        snapshots[plies] = snapshot
        return snapshot
    }

    /// ``snapshot(plies:)`` numbered `sequence`, as a restore returns it.
    func restored(plies: Int, sequence: Int) throws -> SessionSnapshot {
        var expected = try snapshot(plies: plies)
        expected.sequence = sequence
        return expected
    }

    /// A new writer on the directory (a restart), reporting here.
    func writer(limit: Int = 256) throws -> StateWriter {
        let failures = failures
        let warnings = warnings
        return StateWriter(
            store: try StateStore(directory: directory.path), journalLimit: limit,
            onError: { name, reason in failures.append("\(name): \(reason)") },
            onWarning: { name, reason in warnings.append("\(name): \(reason)") })
    }

    var store: StateStore { get throws { try StateStore(directory: directory.path) } }

    /// The journal of `name` (empty when there is none).
    func journal(_ name: String) throws -> Data {
        try store.readJournal(name) ?? Data()
    }

    /// The journal's lines, without their newlines.
    func lines(ofJournal name: String) throws -> [String] {
        String(decoding: try journal(name), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Replaces the journal of `name` (a crash or a power cut, simulated).
    func setJournal(_ name: String, to data: Data) throws {
        try data.write(to: URL(fileURLWithPath: try store.journalPath(for: name)))
    }

    /// Replaces the snapshot file of `name`.
    func setSnapshot(_ name: String, to data: Data) throws {
        try data.write(to: URL(fileURLWithPath: try store.path(for: name)))
    }

    /// The names of the files in the directory that start with `prefix`, sorted.
    func files(startingWith prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(prefix) }.sorted()
    }
}

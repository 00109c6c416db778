import Chess
import Foundation
import Kernel
import Testing

/// The framing of journal lines (`SessionJournalLine`) and its checksum.
@Suite struct SessionJournalLineTests {
    private func entry(plies: Int = 3) throws -> SessionJournalEntry {
        var game = Game()
        for san in ["e4", "e5", "Nf3", "Nc6"].prefix(plies) { try game.play(san: san) }
        let after = GameSession(game: game, inputPath: .identity).snapshot(at: 1)
        return try #require(SessionJournalEntry(sequence: 1, change: SessionChange(keptPlies: 0), after: after))
    }

    @Test func crc32IsTheStandardOne() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
        #expect(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
    }

    @Test func aFramedLineCarriesLengthAndChecksumAndReadsBack() throws {
        let entry = try entry()
        let line = try entry.journalLine()
        let json = try #require(entry.jsonLine()).dropLast()
        let crc = String(CRC32.checksum(json), radix: 16)
        let header = "J1 \(json.count) \(String(repeating: "0", count: 8 - crc.count) + crc) "
        #expect(line == Array(header.utf8) + json + [UInt8(ascii: "\n")])
        #expect(SessionJournalLine.parse(ArraySlice(line.dropLast())) == .entry(entry, framed: true, offset: 0))
    }

    @Test func damagedFramesAreRefusedWithTheirReason() throws {
        let entry = try entry()
        let line = Array(try entry.journalLine().dropLast())
        let json = try #require(entry.jsonLine()).dropLast()
        func reason(_ bytes: [UInt8]) -> String? {
            if case .invalid(let reason) = SessionJournalLine.parse(ArraySlice(bytes)) { return reason }
            return nil
        }
        #expect(reason(Array(line.dropLast())) == "\(json.count - 1) bytes where the line says \(json.count)")
        var flipped = line
        flipped[line.count - 5] ^= 0x01
        #expect(reason(flipped) == "checksum mismatch")
        // Its JSON is not read without the checksum (it still parses: a digit changed).
        var digit = line
        let savedAt = try #require(line.lastIndex(of: UInt8(ascii: ":")))
        digit[savedAt + 1] = digit[savedAt + 1] == UInt8(ascii: "1") ? UInt8(ascii: "2") : UInt8(ascii: "1")
        #expect(reason(digit) == "checksum mismatch")
        #expect(reason(Array("J1 x".utf8)) == "no length")
        #expect(reason(Array("J1 99999999 ".utf8)) == "length out of range")
        #expect(reason(Array("J1 2 0000000g {}".utf8)) == "no checksum")
        #expect(reason(Array("garbage".utf8)) == "not a journal line")
        #expect(reason(Array(#"{"other":1}"#.utf8)) == "not a journal entry")
        #expect(reason(Array(#"{"sequence":1,"#.utf8)) == "unreadable JSON")
        #expect(reason([]) == "not a journal line")
    }

    @Test func anEntryAfterGarbageInTheSameLineIsFound() throws {
        let entry = try entry()
        let framed = Array(try entry.journalLine().dropLast())
        let glued = Array("J1 300 0123".utf8) + framed
        #expect(SessionJournalLine.parse(ArraySlice(glued)) == .entry(entry, framed: true, offset: 11))
        let old = Array(try #require(entry.jsonLine()).dropLast())
        let torn = Array(old.prefix(30)) + old
        #expect(SessionJournalLine.parse(ArraySlice(torn)) == .entry(entry, framed: false, offset: 30))
    }

    @Test func entriesTheDirectWriterLeavesOutAreFramedFromTheEncoder() throws {
        var entry = try entry()
        entry.options = TrackerOptions(desyncGrace: 3)
        #expect(entry.jsonLine() == nil)
        let line = try entry.journalLine()
        #expect(SessionJournalLine.parse(ArraySlice(line.dropLast())) == .entry(entry, framed: true, offset: 0))
    }
}

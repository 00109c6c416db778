import BoardKit
import Chess
import Foundation
import JSON
import TestSupport
import Testing

@testable import Kernel

/// The journal's own reader (``SessionJournalEntry/init(journalJSON:)``) against
/// `JSONDecoder`: every line the bridge writes reads back as the same entry both ways, and
/// on seeded random damage to those lines the reader either declines (the line then goes
/// to `JSONDecoder`) or reads exactly what `JSONDecoder` reads.
@Suite struct SessionJournalReadingTests {
    static let seed: UInt64 = 0x10_0E4D

    /// Entries of every shape the bridge writes: moves with and without clocks, times and
    /// comments, a promotion, every clock, orientation and clock-start policy.
    static func entries() throws -> [SessionJournalEntry] {
        var game = Game()
        for san in ["e4", "d5", "exd5", "Qxd5"] { try game.play(san: san, clock: 299.5, timestamp: 1_796_018_489.758) }
        game.setComment("a \"quoted\" \\ comment\nwith\ta tab, é and \u{1}", forPly: 1)
        var promotion = try Game(startPosition: Position(fen: "8/P6k/8/8/8/8/8/K7 w - - 0 1"))
        try promotion.play(san: "a8=N")
        var entries: [SessionJournalEntry] = []
        for (index, clock) in SavedClocks.all.enumerated() {
            for moves in [[], game.moves, promotion.moves] {
                var entry = SessionJournalEntry(
                    sequence: 41 + index, keptPlies: 3, moves: moves, result: index % 2 == 0 ? .draw : .ongoing,
                    clock: clock, clockWasRunning: index % 3 == 0, savedAt: 1_796_018_490.1234567)
                if index % 4 == 1 {
                    entry.orientation = BoardOrientation.allCases[index % BoardOrientation.allCases.count]
                }
                if index % 5 == 2 { entry.clockStart = index % 2 == 0 ? .manual : .onFirstMove }
                entries.append(entry)
            }
        }
        return entries
    }

    @Test func everyLineTheBridgeWritesReadsBackAsTheSameEntryBothWays() throws {
        for entry in try Self.entries() {
            let line = try #require(entry.jsonLine()).dropLast()
            let direct = try #require(
                SessionJournalEntry(journalJSON: line), "\(String(decoding: line, as: UTF8.self))")
            #expect(direct == entry)
            #expect(try JSONDecoder().decode(SessionJournalEntry.self, from: Data(line)) == entry)
        }
    }

    @Test func onDamagedLinesTheReaderDeclinesOrReadsWhatTheDecoderReads() throws {
        var random = SeededGenerator(seed: Self.seed)
        let lines = try Self.entries().map { try JSONValue(parsing: #require($0.jsonLine())) }
        var read = 0
        var declined = 0
        for _ in 0..<3_000 {
            var value = lines[Int(random.next() % UInt64(lines.count))]
            for _ in 0...Int(random.next() % 3) { value = Self.damage(value, using: &random) }
            let bytes = ArraySlice(value.encoded())
            let decoded = try? JSONDecoder().decode(SessionJournalEntry.self, from: Data(bytes))
            guard let direct = SessionJournalEntry(journalJSON: bytes) else {
                declined += 1
                continue
            }
            read += 1
            #expect(direct == decoded, "\(value), seed \(Self.seed)")
            if direct != decoded { return }
        }
        // Both outcomes occur: the damage is neither always fatal nor always harmless.
        #expect(read > 300)
        #expect(declined > 300)
    }

    /// One random change somewhere in `value`: a member removed, set to `null`, to another
    /// kind of value, or a member added.
    static func damage(_ value: JSONValue, using random: inout SeededGenerator) -> JSONValue {
        let replacements: [JSONValue] = [
            .null, .bool(true), .number(1), .number(2.5), .number(-1), .number(64), .string("white"), .string("x"),
            .array([]), .object(JSONObject()), ["_0": "black"], ["stopped": [:]],
        ]
        switch value {
        case .object(var object):
            guard !object.members.isEmpty else {
                object["extra"] = replacements[Int(random.next() % UInt64(replacements.count))]
                return .object(object)
            }
            let index = Int(random.next() % UInt64(object.members.count))
            let key = object.members[index].key
            switch random.next() % 5 {
            case 0: object[key] = nil
            case 1: object[key] = replacements[Int(random.next() % UInt64(replacements.count))]
            case 2: object["unknown_\(random.next() % 4)"] = .number(7)
            default: object[key] = damage(object.members[index].value, using: &random)
            }
            return .object(object)
        case .array(var elements):
            guard !elements.isEmpty else { return .array([.number(1)]) }
            let index = Int(random.next() % UInt64(elements.count))
            if random.next() % 4 == 0 {
                elements.remove(at: index)
            } else {
                elements[index] = damage(elements[index], using: &random)
            }
            return .array(elements)
        default:
            return replacements[Int(random.next() % UInt64(replacements.count))]
        }
    }
}

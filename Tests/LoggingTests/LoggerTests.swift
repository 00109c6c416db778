import Foundation
import Logging
import Synchronization
import Testing

private final class CollectingSink: LogSink, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    var lines: [String] { lock.withLock { stored } }
    func write(line: String) { lock.withLock { stored.append(line) } }
}

@Suite struct LoggerTests {
    @Test func textLinesCarryTheJournaldPriority() {
        let sink = CollectingSink()
        let logger = Logger(label: "board-01", level: .info, sink: sink)
        logger.warning("link lost", [("attempt", "2")])
        logger.debug("not shown")
        #expect(sink.lines == ["<4>board-01: link lost attempt=2"])
    }

    @Test func jsonLinesAreEscaped() {
        let sink = CollectingSink()
        let logger = Logger(label: "mqtt", level: .debug, format: .json, sink: sink)
        logger.info("said \"hi\"\n", [("topic", "a/b")])
        #expect(sink.lines == [#"{"level":"info","label":"mqtt","message":"said \"hi\"\n","topic":"a/b"}"#])
    }

    @Test func levelsMapToSyslogPriorities() {
        #expect(LogLevel.allCases.map(\.syslogPriority) == [7, 6, 5, 4, 3])
    }

    /// Issue #16 (3): a refused 60 KB command costs a short line, not its whole value.
    @Test func longValuesAreCappedWithTheirSize() throws {
        let sink = CollectingSink()
        let logger = Logger(label: "b02", level: .info, sink: sink)
        let value = "bad square \"" + String(repeating: "x", count: 60_000) + "\""
        logger.warning("refused command", [("board", "b02"), ("error", value)])
        let line = try #require(sink.lines.first)
        #expect(
            line == "<4>b02: refused command board=b02 error=bad square \"" + String(repeating: "x", count: 188)
                + "… (60013 bytes)")
        #expect(
            Logger.capped(String(repeating: "é", count: 150), limit: 201) == String(repeating: "é", count: 100)
                + "… (300 bytes)")
        #expect(Logger.capped("short", limit: 200) == "short")
    }

    /// Issue #17: below the threshold neither the message nor the metadata is built.
    @Test func filteredLinesBuildNothing() {
        let sink = CollectingSink()
        let logger = Logger(label: "board", level: .info, sink: sink)
        let built = Mutex(0)
        func expensive(_ text: String) -> String {
            built.withLock { $0 += 1 }
            return text
        }
        logger.debug(expensive("frame"), [("bytes", expensive("0a0b0c"))])
        #expect(built.withLock { $0 } == 0)
        #expect(sink.lines.isEmpty)
        logger.info(expensive("frame"), [("bytes", expensive("0a0b0c"))])
        #expect(built.withLock { $0 } == 2)
        #expect(sink.lines == ["<6>board: frame bytes=0a0b0c"])
    }

    @Test func prefixesAndLabelsCompose() {
        let sink = CollectingSink()
        let logger = Logger(label: "bridge", level: .debug, sink: sink).labelled("bluez").prefixed("[hci0] ")
            .prefixed("[AA:BB] ")
        logger.notice("connected")
        #expect(sink.lines == ["<5>bluez: [hci0] [AA:BB] connected"])
    }

    @Test func closureSinksReceiveEntriesUnformatted() {
        let entries = Mutex<[LogEntry]>([])
        let logger = Logger(
            label: "bluez", level: .warning, format: .json,
            sink: ClosureSink { entry in entries.withLock { $0.append(entry) } })
        logger.info("dropped")
        logger.error("failed", [("code", "3")])
        #expect(
            entries.withLock { $0 } == [
                LogEntry(level: .error, label: "bluez", message: "failed", metadata: [("code", "3")])
            ])
    }

    @Test func jsonLinesEscapeEveryControlCharacter() {
        let entry = LogEntry(level: .warning, label: "a\u{1}", message: "tab\there\u{8}", metadata: [("k\"", "é")])
        #expect(entry.line(.json) == #"{"level":"warning","label":"a\u0001","message":"tab\there\b","k\"":"é"}"#)
    }

    @Test func levelsAreOrderedBySeverity() {
        #expect(LogLevel.allCases == LogLevel.allCases.sorted())
        #expect(LogLevel.debug < .info && LogLevel.notice < .warning && LogLevel.warning < .error)
        #expect(Logger.silent.isEnabled(.warning) == false)
    }
}

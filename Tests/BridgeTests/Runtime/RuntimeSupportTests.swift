import Config
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Bridge

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct StateStoreTests {
    @Test func writesAtomicallyAndReadsBack() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try StateStore(directory: directory)
        #expect(try store.read("board-01") == nil)
        try store.write(Data("first".utf8), as: "board-01")
        try store.write(Data("second".utf8), as: "board-01")
        #expect(try store.read("board-01") == Data("second".utf8))
        #expect(!FileManager.default.fileExists(atPath: store.path(for: "board-01") + ".tmp"))
        store.remove("board-01")
        #expect(try store.read("board-01") == nil)
    }

    @Test func reportsAnUnwritableDirectory() {
        #expect(throws: StateStoreError.self) {
            let store = try StateStore(directory: "/proc/boardbridge-cannot-exist")
            try store.write(Data("x".utf8), as: "b")
        }
    }
}

@Suite struct SystemdNotifierTests {
    @Test func disabledWithoutNotifySocket() {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.isEnabled)
        #expect(!notifier.notify("READY=1"))
    }

    @Test func sendsDatagramsToTheNotifySocket() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "notify-\(UUID().uuidString.prefix(8))"
        ).path
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(fd >= 0)
        defer {
            close(fd)
            unlink(path)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0)
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "30000000"])
        #expect(notifier.watchdogInterval == 30)
        #expect(notifier.notify("READY=1\nSTATUS=ok"))
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        #expect(count > 0)
        #expect(String(decoding: buffer[0..<max(0, count)], as: UTF8.self) == "READY=1\nSTATUS=ok")
    }
}

@MainActor
@Suite struct StateWriterTests {
    @Test func manySavesEndWithTheNewestContentOfEveryFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("writer-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let failures = Mutex<[String]>([])
        let writer = StateWriter(store: try StateStore(directory: directory)) { name, reason in
            failures.withLock { $0.append("\(name): \(reason)") }
        }
        for index in 0..<200 {
            writer.save(Data("first \(index)".utf8), as: "board-01")
            writer.save(Data("second \(index)".utf8), as: "board-02")
        }
        writer.flush()
        #expect(try writer.store.read("board-01") == Data("first 199".utf8))
        #expect(try writer.store.read("board-02") == Data("second 199".utf8))
        #expect(failures.withLock { $0 }.isEmpty)
    }

    @Test func savesWhileAFlushRunsAreCoveredByOneMoreFlush() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("writer-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var failures: [String] = []
        let writer = StateWriter(store: try StateStore(directory: directory)) { name, reason in
            failures.append("\(name): \(reason)")
        }
        // 100 saves of one file on the main actor, with no chance for a flush to report
        // back in between: one flush runs, the other saves wait for a single next one.
        for index in 0..<100 { writer.save(Data("save \(index)".utf8), as: "board-01") }
        #expect(writer.handOvers == 1)
        #expect(!writer.isSettled)
        // Reports come back on the main queue: the second flush, then nothing more.
        #expect(await eventually { writer.isSettled })
        #expect(writer.handOvers == 2)
        #expect(try writer.store.read("board-01") == Data("save 99".utf8))
        #expect(failures.isEmpty)
    }

    @Test func encodableValuesAreEncodedAsJSONByTheWriter() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("writer-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let writer = StateWriter(store: try StateStore(directory: directory)) { _, _ in }
        writer.save(["b", "a"], as: "announced")
        writer.flush()
        let data = try #require(try writer.store.read("announced"))
        #expect(try JSONDecoder().decode([String].self, from: data) == ["b", "a"])
    }

    @Test func aFailedWriteIsReportedWithTheFileName() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("writer-\(UUID())").path
        let failures = Mutex<[(String, String)]>([])
        let writer = StateWriter(store: try StateStore(directory: directory)) { name, reason in
            failures.withLock { $0.append((name, reason)) }
        }
        try FileManager.default.removeItem(atPath: directory)
        writer.save(Data("lost".utf8), as: "board-07")
        writer.flush()
        let reported = failures.withLock { $0 }
        #expect(reported.count == 1)
        #expect(reported.first?.0 == "board-07")
        #expect(reported.first?.1.hasPrefix("open \(directory)/board-07.json.tmp") == true)
    }
}

import Foundation
import Testing

@testable import Bridge

/// The process and directory figures of the health report, read from `/proc/self` and
/// `statvfs`.
@Suite struct ProcessFiguresTests {
    @Test func readsThisProcess() throws {
        let ticks = try #require(ProcessFigures.cpuTicks())
        #expect(ticks >= 0)
        #expect((ProcessFigures.residentBytes() ?? 0) > 1_000_000)
    }

    @Test func probesADirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("figures-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(ProcessFigures.probeWritable(directory) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        #expect((ProcessFigures.freeBytes(directory) ?? 0) > 0)
        #expect(ProcessFigures.probeWritable(directory + "/missing") == "No such file or directory")
        #expect(ProcessFigures.freeBytes(directory + "/missing") == nil)
    }
}

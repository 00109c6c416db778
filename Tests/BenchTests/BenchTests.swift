import Foundation
import TestSupport
import Testing

@testable import boardbridge_bench

/// The benchmark executable's own logic, and one short run of it: benchmarks are never
/// timed tests, but the executable that measures must keep working.
@Suite struct BenchLogicTests {
    @Test func percentilesAreNearestRankSamples() {
        let hundred = Percentiles((1...100).map(Double.init).shuffled())
        #expect(hundred.median == 50)
        #expect(hundred.p90 == 90)
        #expect(hundred.p99 == 99)
        #expect(hundred.p999 == 100)
        #expect(hundred.minimum == 1)
        #expect(hundred.maximum == 100)
        #expect(hundred.mean == 50.5)
        let three = Percentiles([0.3, 0.1, 0.2])
        #expect(three.median == 0.2)
        #expect(three.p99 == 0.3)
        #expect(three.percentile(0) == 0.1)
        #expect(Percentiles([Double]()).median == 0)
        #expect(Percentiles([Duration.milliseconds(1500)]).median == 1.5)
    }

    /// Issue #33 (4): the README's table comes from a run, with its machine, commit and
    /// date, between the markers only; a file without them is refused, untouched.
    @Test func theReadmeTableIsReplacedBetweenItsMarkers() throws {
        var machine = MachineInfo.current()
        machine.gitCommit = "abcdef123456"
        let result = BenchResult(
            key: "core.x", label: "frames | decoded", value: 2_500_000, unit: "frames/s",
            goal: BenchGoal(direction: .atLeast, threshold: 1_000_000, text: "≥ 1 M/s"))
        let report = BenchReport(
            machine: machine, quick: true,
            sections: [
                SectionReport(number: 1, id: "core", title: "Core", seconds: 1, results: [result]),
                SectionReport(number: 2, id: "e2e", title: "E2E", seconds: 1, results: [], error: "no broker"),
            ], loadAverageAtEnd: [])
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("README.md").path
        let before = "# Title\n\n" + BenchReadme.begin + "\nold table\n" + BenchReadme.end + "\n\nAfter.\n"
        try before.write(toFile: path, atomically: true, encoding: .utf8)
        try BenchReadme.update(file: path, with: report)
        let after = try String(contentsOfFile: path, encoding: .utf8)
        #expect(after.hasPrefix("# Title\n\n" + BenchReadme.begin + "\nGenerated from commit `abcdef123456` on "))
        #expect(after.hasSuffix(BenchReadme.end + "\n\nAfter.\n") && !after.contains("old table"))
        #expect(after.contains("| 1 core | frames \\| decoded | 2.50 M frames/s |  | goal ≥ 1 M/s: met |"), "\(after)")
        #expect(after.contains("| 2 e2e | **failed** | no broker | | |"))
        #expect(after.contains("--quick --readme README.md` (short runs: rough numbers)"))
        try "no markers".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: BenchReadme.MarkersMissing.self) { try BenchReadme.update(file: path, with: report) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "no markers")
    }

    @Test func optionsAreParsedOrRefused() throws {
        let options = try BenchOptions(arguments: ["--quick", "--only", "core,e2e", "--json=out.json"])
        #expect(options.quick)
        #expect(options.only == ["core", "e2e"])
        #expect(options.jsonPath == "out.json")
        #expect(throws: BenchUsageError.unknownOption("--fast")) { try BenchOptions(arguments: ["--fast"]) }
        #expect(throws: BenchUsageError.missingValue("--json")) { try BenchOptions(arguments: ["--json"]) }
    }
}

/// `boardbridge-bench --quick --only startup`: the whole machinery (its own private bus,
/// boardsim, mosquitto and boardbridge, all stopped by PID) and the JSON it writes.
@Suite(.enabled(if: TestTools.available("dbus-daemon", "mosquitto")))
struct BenchRunTests {
    /// Runs `boardbridge-bench --quick --only <section>` and returns its output and the
    /// JSON root it wrote (after checking that it exited 0).
    private func quickRun(_ section: String) async throws -> (output: String, root: [String: Any]) {
        let directory = try TestTools.temporaryDirectory("bench-\(section)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("results.json")
        let bench = ManagedProcess(
            executable: try TestTools.product("boardbridge-bench"),
            arguments: ["--quick", "--only", section, "--json", json.path])
        try bench.start()
        let status = await bench.exitStatus(within: .seconds(300))
        if status == nil { await bench.terminate(grace: .seconds(2)) }
        #expect(status == 0, "\(bench.output.suffix(3000))")
        let data = try Data(contentsOf: json)
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return (bench.output, root)
    }

    @Test func aQuickStartupRunWritesItsResultsAsJSON() async throws {
        let (_, root) = try await quickRun("startup")
        #expect(root["schema"] as? Int == 1)
        #expect(root["quick"] as? Bool == true)
        let machine = try #require(root["machine"] as? [String: Any])
        #expect((machine["logicalCores"] as? Int ?? 0) > 0)
        let sections = try #require(root["sections"] as? [[String: Any]])
        #expect(sections.map { $0["id"] as? String } == ["startup"])
        let section = try #require(sections.first)
        #expect(section["error"] == nil || section["error"] is NSNull, "\(section["error"] ?? "")")
        let results = try #require(section["results"] as? [[String: Any]])
        let keys = results.compactMap { $0["key"] as? String }
        #expect(keys.contains { $0.hasPrefix("startup.1.") }, "keys: \(keys)")
        for result in results {
            let value = try #require(result["value"] as? Double, "\(result)")
            #expect(value.isFinite && value > 0, "\(result["key"] ?? "?") = \(value)")
        }
        // The full hall's floors come from the connect and discovery times boardsim drew
        // (`RadioTimes`): every phase has one, above the connects of one adapter alone.
        let hall = results.filter { ($0["key"] as? String)?.hasPrefix("startup.hall.") == true }
        #expect(hall.count == 3, "keys: \(keys)")
        for result in hall {
            let details = try #require(result["details"] as? [String: Any], "\(result)")
            let floor = try #require(details["floor_ms"] as? Double, "\(result)")
            let mean = try #require(details["mean_floor_ms"] as? Double, "\(result)")
            #expect(floor > 0.5 * mean && floor < 2 * mean, "\(result["key"] ?? "?"): floor \(floor), mean \(mean)")
        }
    }

    /// The floors run: the wake-up sender is handed its sockets (a child that kept none but
    /// its standard three failed this section in `.ci/run`, issue #28).
    @Test func aQuickFloorRunMeasuresTheWakeUpFloor() async throws {
        let (output, root) = try await quickRun("floor")
        let sections = try #require(root["sections"] as? [[String: Any]])
        let section = try #require(sections.first { $0["id"] as? String == "floor" })
        #expect(section["error"] == nil || section["error"] is NSNull, "\(section["error"] ?? "")")
        #expect(!output.contains("FAILED"), "\(output.suffix(3000))")
    }
}

import Foundation
import MainLoop

/// The whole run: options, machine record, sections, table, JSON.
enum BenchRunner {
    /// Runs the bench with `arguments` (without the program name); returns the exit status:
    /// 0 when every section ran (goals missed are reported, not failed), 1 when a section
    /// failed or the JSON could not be written, 2 for a bad command line.
    @MainActor
    static func main(arguments: [String]) async -> Int32 {
        let options: BenchOptions
        let sections: [any BenchSection]
        do {
            options = try BenchOptions(arguments: arguments)
            if options.help {
                print(BenchOptions.usage)
                return 0
            }
            sections = try BenchSections.select(options.only)
        } catch {
            FileHandle.standardError.write(Data("boardbridge-bench: \(error)\n".utf8))
            return 2
        }
        let registry = ChildProcessRegistry.shared
        registry.installInterruptHandler()
        let machine = MachineInfo.current()
        log("boardbridge-bench — \(machine.summary)")
        if machine.buildConfiguration != "release" {
            log("WARNING: this is a debug build; the numbers mean little (use swift run -c release)")
        }

        var reports: [SectionReport] = []
        for section in sections {
            log("[\(section.number)] \(section.title)")
            let context = BenchContext(options: options, children: registry)
            let started = ContinuousClock.now
            var failure: String?
            do {
                try await section.run(context)
            } catch {
                failure = "\(error)"
                log("  FAILED: \(error)")
            }
            registry.stopAll()
            reports.append(
                SectionReport(
                    number: section.number, id: section.id, title: section.title,
                    seconds: (ContinuousClock.now - started).inSeconds, results: context.results, error: failure))
        }

        let report = BenchReport(
            machine: machine, quick: options.quick, sections: reports, loadAverageAtEnd: MachineInfo.loadAverage())
        print("")
        print(BenchTable.render(report))
        var status: Int32 = reports.contains { $0.error != nil } ? 1 : 0
        do {
            try write(report, to: options.jsonPath)
            print("results written to \(options.jsonPath)")
        } catch {
            log("boardbridge-bench: cannot write \(options.jsonPath): \(error)")
            status = 1
        }
        if let readme = options.readmePath {
            do {
                try BenchReadme.update(file: readme, with: report)
                print("performance table written into \(readme)")
            } catch {
                log("boardbridge-bench: cannot update \(readme): \(error)")
                status = 1
            }
        }
        return status
    }

    /// Writes `report` as pretty, key-sorted JSON, creating the folder if needed.
    static func write(_ report: BenchReport, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        try encoder.encode(report).write(to: url, options: .atomic)
    }

    /// A line on standard error.
    static func log(_ text: String) {
        FileHandle.standardError.write(Data("\(text)\n".utf8))
    }
}

import JSON

extension PureCoreSection {
    /// JSON strings both ways, each against copying the same bytes (the floor: no quoting or
    /// reading of a string beats copying it): the strings of a move and a board state message
    /// quoted (every message the bridge publishes), and the string of a 60 KB command read
    /// (what a flood of large commands costs the loop).
    func jsonResults(plan: Plan, context: BenchContext) {
        let texts = [
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2", "Nf3", "g1f3", "white", "board-01",
            "Chessnut Air", "2026-12-07T12:00:00.123Z", "in_sync", "Doe, J", "Roe, R", "Open 2026 \"A\"", "300+2",
            "connected", "hci0", "AA:BB:CC:DD:EE:01", "1. e4 e5 2. Nf3 { [%clk 0:04:58] } Nc6\n3. Bb5 a6 *",
        ]
        let bytes = texts.reduce(0) { $0 + $1.utf8.count }
        let quoting = Stopwatch.measure(
            operations: bytes, runTime: plan.runTime, warmup: plan.warmup, repeats: plan.repeats
        ) {
            var output: [UInt8] = []
            output.reserveCapacity(bytes * 2)
            for text in texts { JSONText.appendQuoted(text, to: &output) }
            return output.count
        }
        let copying = Stopwatch.measure(
            operations: bytes, runTime: plan.runTime, warmup: plan.warmup, repeats: plan.repeats
        ) {
            var output: [UInt8] = []
            output.reserveCapacity(bytes * 2)
            for text in texts { output.append(contentsOf: text.utf8) }
            return output.count
        }
        record(quoting, over: copying, key: "core.json.quote", label: "JSON: a message's strings quoted", context)

        let prefix = Array(#"{"command":"raw","bytes":""#.utf8)
        let content = prefix.count..<(prefix.count + 60_000)
        let command = prefix + Array(repeating: UInt8(ascii: "a"), count: content.count) + Array(#""}"#.utf8)
        let reading = Stopwatch.measure(
            operations: command.count, runTime: plan.runTime, warmup: plan.warmup, repeats: plan.repeats
        ) { (try? JSONValue(parsing: command))?["bytes"]?.stringValue?.utf8.count ?? 0 }
        let copyingCommand = Stopwatch.measure(
            operations: command.count, runTime: plan.runTime, warmup: plan.warmup, repeats: plan.repeats
        ) { String(decoding: command[content], as: UTF8.self).utf8.count }
        record(
            reading, over: copyingCommand, key: "core.json.parse_large", label: "JSON: a 60 KB command read", context)
        // The same command cut short (a flood's commands are refused at their end): the refusal
        // names the line and column of its problem, counted over the whole payload.
        let cut = Array(command.dropLast(2))
        let refusing = Stopwatch.measure(
            operations: cut.count, runTime: plan.runTime, warmup: plan.warmup, repeats: plan.repeats
        ) {
            do throws(JSONError) {
                return try JSONValue(parsing: cut)["bytes"]?.stringValue?.utf8.count ?? 0
            } catch {
                return error.column
            }
        }
        record(
            refusing, over: copyingCommand, key: "core.json.refuse_large", label: "JSON: a 60 KB command refused",
            context)
    }

    private func record(
        _ timing: TimingResult, over floor: TimingResult, key: String, label: String, _ context: BenchContext
    ) {
        let megabytes = timing.operationsPerSecond / 1e6
        let ratio = timing.medianSecondsPerOperation / max(floor.medianSecondsPerOperation, 1e-15)
        context.record(
            BenchResult(
                key: key, label: label, value: megabytes, unit: "MB/s",
                details: timing.details.merging([
                    "floor_mb_per_s": floor.operationsPerSecond / 1e6, "over_floor": ratio,
                ]) { $1 },
                note: String(format: "%.1f× the time of copying the same bytes", ratio)))
    }
}

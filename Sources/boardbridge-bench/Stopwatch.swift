import MainLoop

/// The timings of one benchmark: several runs over the same work.
struct TimingResult {
    /// Each timed run's duration.
    let runs: [Duration]
    /// Operations (frames, events, nodes) done by one run.
    let operationsPerRun: Int

    /// Seconds per operation of each run.
    var perOperation: Percentiles {
        Percentiles(runs.map { $0.inSeconds / Double(max(operationsPerRun, 1)) })
    }

    /// The median seconds per operation.
    var medianSecondsPerOperation: Double { perOperation.median }

    /// Operations per second at the median run.
    var operationsPerSecond: Double {
        let median = medianSecondsPerOperation
        return median > 0 ? 1 / median : 0
    }

    /// The median run's duration in seconds.
    var medianRunSeconds: Double { Percentiles(runs).median }

    /// The numbers every timed result carries in the JSON: the median per operation in
    /// nanoseconds, the fastest and slowest run's per-operation time, the spread, counts.
    var details: [String: Double] {
        let stats = perOperation
        return [
            "ns_per_op_median": stats.median * 1e9,
            "ns_per_op_min": stats.minimum * 1e9,
            "ns_per_op_max": stats.maximum * 1e9,
            "spread": stats.spread,
            "runs": Double(runs.count),
            "ops_per_run": Double(operationsPerRun),
            "run_seconds_median": medianRunSeconds,
        ]
    }
}

/// Times pure work with `ContinuousClock`: calibrate, warm up, repeat, take the median.
enum Stopwatch {
    /// Times `pass`, which does `operations` operations and returns a checksum (kept so
    /// the optimizer cannot drop the work).
    ///
    /// One pass is timed first; a run then repeats the pass enough times to last about
    /// `runTime`. Runs are made for `warmup` without being recorded (at least one), then
    /// `repeats` runs are recorded.
    static func measure(
        operations: Int, runTime: Duration, warmup: Duration, repeats: Int, _ pass: () -> Int
    ) -> TimingResult {
        let clock = ContinuousClock()
        var checksum = 0
        let first = clock.measure { checksum &+= pass() }
        let passesPerRun = max(1, Int((runTime.inSeconds / max(first.inSeconds, 1e-9)).rounded(.up)))
        let warmupEnd = clock.now + warmup
        repeat {
            for _ in 0..<passesPerRun { checksum &+= pass() }
        } while clock.now < warmupEnd
        var runs: [Duration] = []
        runs.reserveCapacity(repeats)
        for _ in 0..<max(repeats, 1) {
            let elapsed = clock.measure {
                for _ in 0..<passesPerRun { checksum &+= pass() }
            }
            runs.append(elapsed)
        }
        consume(checksum)
        return TimingResult(runs: runs, operationsPerRun: operations * passesPerRun)
    }

    /// Times `repeats` single calls of long work (perft): no calibration, no warm-up run
    /// beyond what the caller does.
    static func measureOnce(operations: Int, repeats: Int, _ work: () -> Int) -> TimingResult {
        let clock = ContinuousClock()
        var checksum = 0
        var runs: [Duration] = []
        for _ in 0..<max(repeats, 1) {
            runs.append(clock.measure { checksum &+= work() })
        }
        consume(checksum)
        return TimingResult(runs: runs, operationsPerRun: operations)
    }
}

/// Where checksums go so that the work producing them is not optimised away.
nonisolated(unsafe) private var checksumSink = 0

/// Keeps `value` alive as far as the optimizer can tell.
@inline(never)
func consume(_ value: Int) {
    checksumSink &+= value
}

import MainLoop
/// Order statistics of a set of samples (latencies, per-run times), by the nearest-rank
/// method: the p-th percentile is the smallest sample with at least p % of the samples at
/// or below it, so every reported value is a value that was really measured.
struct Percentiles: Equatable {
    /// The samples, ascending.
    let sorted: [Double]

    /// The statistics of `samples` (any order). An empty set gives zeros.
    init(_ samples: [Double]) {
        sorted = samples.sorted()
    }

    /// The statistics of `samples` in seconds.
    init(_ samples: [Duration]) {
        self.init(samples.map(\.inSeconds))
    }

    /// How many samples.
    var count: Int { sorted.count }

    /// The `p`-th percentile (`p` in 0…100; 0 gives the minimum).
    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((Swift.min(Swift.max(p, 0), 100) / 100 * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }

    /// The median (p50).
    var median: Double { percentile(50) }
    /// The 90th percentile.
    var p90: Double { percentile(90) }
    /// The 99th percentile.
    var p99: Double { percentile(99) }
    /// The 99.9th percentile.
    var p999: Double { percentile(99.9) }
    /// The smallest sample.
    var minimum: Double { sorted.first ?? 0 }
    /// The largest sample.
    var maximum: Double { sorted.last ?? 0 }
    /// The arithmetic mean.
    var mean: Double { sorted.isEmpty ? 0 : sorted.reduce(0, +) / Double(sorted.count) }
    /// `(max - min) / median`: how far the samples spread, relative to the median.
    var spread: Double { median > 0 ? (maximum - minimum) / median : 0 }
}

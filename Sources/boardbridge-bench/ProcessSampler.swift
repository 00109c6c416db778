import Foundation
import MainLoop

#if canImport(Glibc)
    import Glibc
#endif

/// The calling thread's CPU time, user and system (`CLOCK_THREAD_CPUTIME_ID`), in
/// nanoseconds.
func threadCPUNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// One reading of a process's CPU time and memory from /proc.
struct ProcessSample: Equatable {
    /// When it was taken.
    var time: ContinuousClock.Instant
    /// User + system CPU time of the whole process (all threads, live and exited), in
    /// clock ticks (`utime` + `stime` of /proc/<pid>/stat; 100 ticks a second on Linux).
    var cpuTicks: UInt64
    /// On-CPU time of the process's live threads in nanoseconds (the first field of every
    /// /proc/<pid>/task/<tid>/schedstat), when the kernel provides it; precise, but it
    /// forgets threads that have exited.
    var cpuNanoseconds: UInt64?
    /// The process's CPU-time clock in nanoseconds (`clock_getcpuclockid`: every thread,
    /// exited ones included), when readable: precise even without schedstat.
    var processCPUNanoseconds: UInt64? = nil
    /// Resident set size now (`VmRSS`), in bytes.
    var rssBytes: UInt64
    /// Peak resident set size so far (`VmHWM`), in bytes.
    var peakRSSBytes: UInt64
    /// Threads now (`Threads`).
    var threads: Int
    /// Voluntary context switches of the live threads (`voluntary_ctxt_switches` of every
    /// /proc/<pid>/task/<tid>/status): how often they went to sleep, i.e. were woken up.
    var voluntarySwitches: UInt64? = nil
    /// Moves of the live threads between CPUs (`se.nr_migrations` of every
    /// /proc/<pid>/task/<tid>/sched), when the kernel shows it.
    var migrations: UInt64? = nil

    /// CPU seconds from the tick counters.
    var cpuSeconds: Double { Double(cpuTicks) / Double(ProcessSampler.ticksPerSecond) }
}

/// How much CPU a process used between two samples.
struct CPUUsage: Equatable {
    /// CPU seconds used (ticks; precise nanoseconds when both samples had them and the
    /// thread set looks unchanged).
    var cpuSeconds: Double
    /// Wall seconds between the samples.
    var wallSeconds: Double
    /// `cpuSeconds / wallSeconds`: the share of one core (1.0 = one core busy).
    var fractionOfCore: Double { wallSeconds > 0 ? cpuSeconds / wallSeconds : 0 }
}

/// Reads CPU time and memory of any process (or the bench itself) from /proc.
enum ProcessSampler {
    /// Clock ticks per second (`sysconf(_SC_CLK_TCK)`).
    static let ticksPerSecond: Int = max(1, sysconf(Int32(_SC_CLK_TCK)))

    /// A sample of `pid` now (`nil`: the bench itself), or `nil` when the process is gone.
    static func sample(pid: Int32? = nil) -> ProcessSample? {
        let base = pid.map { "/proc/\($0)" } ?? "/proc/self"
        let now = ContinuousClock.now
        guard let stat = try? String(contentsOfFile: "\(base)/stat", encoding: .utf8),
            let status = try? String(contentsOfFile: "\(base)/status", encoding: .utf8),
            let ticks = cpuTicks(fromStat: stat)
        else { return nil }
        let memory = statusFields(status)
        return ProcessSample(
            time: now, cpuTicks: ticks,
            cpuNanoseconds: schedstatNanoseconds(base: base),
            processCPUNanoseconds: processClockNanoseconds(pid: pid ?? getpid()),
            rssBytes: (memory["VmRSS"] ?? 0) * 1024, peakRSSBytes: (memory["VmHWM"] ?? 0) * 1024,
            threads: Int(memory["Threads"] ?? 0),
            voluntarySwitches: threadSum(base: base, file: "status") { text in
                statusFields(text)["voluntary_ctxt_switches"]
            },
            migrations: threadSum(base: base, file: "sched") { text in
                text.split(separator: "\n").first { $0.hasPrefix("se.nr_migrations") }
                    .flatMap { $0.split(separator: ":").last }
                    .flatMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
            })
    }

    /// A number read from `file` of every live thread, summed; `nil` when no thread has it.
    private static func threadSum(base: String, file: String, _ read: (String) -> UInt64?) -> UInt64? {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "\(base)/task") else { return nil }
        var total: UInt64?
        for thread in threads {
            guard let text = try? String(contentsOfFile: "\(base)/task/\(thread)/\(file)", encoding: .utf8),
                let value = read(text)
            else { continue }
            total = (total ?? 0) + value
        }
        return total
    }

    /// The CPU used between `start` and `end` (samples of the same process).
    static func usage(from start: ProcessSample, to end: ProcessSample) -> CPUUsage {
        let wall = (end.time - start.time).inSeconds
        let tickSeconds = Double(end.cpuTicks &- start.cpuTicks) / Double(ticksPerSecond)
        if let a = start.processCPUNanoseconds, let b = end.processCPUNanoseconds, b >= a {
            return CPUUsage(cpuSeconds: Double(b - a) / 1e9, wallSeconds: wall)
        }
        if let a = start.cpuNanoseconds, let b = end.cpuNanoseconds, b >= a, start.threads == end.threads {
            let precise = Double(b - a) / 1e9
            // Trust the precise figure unless an exited thread made it lose time.
            if precise + 0.02 >= tickSeconds { return CPUUsage(cpuSeconds: precise, wallSeconds: wall) }
        }
        return CPUUsage(cpuSeconds: tickSeconds, wallSeconds: wall)
    }

    /// `utime + stime` from the text of /proc/<pid>/stat (fields 14 and 15; the command
    /// name in field 2 may hold spaces and parentheses, so fields are counted after the
    /// last `)`).
    static func cpuTicks(fromStat text: String) -> UInt64? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state): utime (14) is fields[11], stime (15) fields[12].
        guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return nil }
        return user + system
    }

    /// The numeric `Key: value [kB]` fields of /proc/<pid>/status.
    static func statusFields(_ text: String) -> [String: UInt64] {
        var fields: [String: UInt64] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            let words = parts.count == 2 ? parts[1].split(whereSeparator: { $0 == " " || $0 == "\t" }) : []
            guard let number = words.first.flatMap({ UInt64($0) }) else { continue }
            fields[String(parts[0])] = number
        }
        return fields
    }

    /// The process's CPU-time clock (`clock_getcpuclockid`): every thread, live or exited,
    /// in nanoseconds. Precise where the kernel keeps no schedstat (this VM's does not).
    private static func processClockNanoseconds(pid: Int32) -> UInt64? {
        var clock = clockid_t()
        guard clock_getcpuclockid(pid, &clock) == 0 else { return nil }
        var now = timespec()
        guard clock_gettime(clock, &now) == 0 else { return nil }
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// The summed on-CPU nanoseconds of every live thread of the process, or `nil`.
    private static func schedstatNanoseconds(base: String) -> UInt64? {
        threadSum(base: base, file: "schedstat") { text in text.split(separator: " ").first.flatMap { UInt64($0) } }
    }
}

/// Samples one process at a fixed interval on a background queue until stopped: CPU per
/// interval and the memory curve (peak RSS is also in every sample's `VmHWM`).
final class ProcessMonitor: @unchecked Sendable {
    /// The process watched (`nil`: the bench itself).
    let pid: Int32?
    /// The sampling interval.
    let interval: Duration
    private let lock = NSLock()
    private var collected: [ProcessSample] = []
    private let timer: any DispatchSourceTimer

    /// Starts sampling `pid` every `interval` (first sample at once).
    init(pid: Int32?, interval: Duration = .milliseconds(100)) {
        self.pid = pid
        self.interval = interval
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "boardbridge-bench.monitor"))
        timer.setEventHandler { [weak self] in self?.takeSample() }
        let nanoseconds = Int(interval.inSeconds * 1e9)
        timer.schedule(deadline: .now(), repeating: .nanoseconds(max(nanoseconds, 1_000_000)))
        timer.resume()
    }

    /// Stops sampling and returns the samples, oldest first (one last sample is added).
    func stop() -> [ProcessSample] {
        timer.cancel()
        takeSample()
        lock.lock()
        defer { lock.unlock() }
        return collected
    }

    /// The largest share of one core used over any single interval.
    static func peakCPU(_ samples: [ProcessSample]) -> Double {
        zip(samples, samples.dropFirst()).map { ProcessSampler.usage(from: $0, to: $1).fractionOfCore }.max() ?? 0
    }

    private func takeSample() {
        guard let sample = ProcessSampler.sample(pid: pid) else { return }
        lock.lock()
        collected.append(sample)
        lock.unlock()
    }

    deinit { timer.cancel() }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The machine, toolchain and build a run was measured on.
struct MachineInfo: Codable, Equatable {
    /// `model name` from /proc/cpuinfo.
    var cpuModel: String
    /// `cpu MHz` of the first processor in /proc/cpuinfo, when given.
    var cpuMHz: Double?
    /// Online logical processors.
    var logicalCores: Int
    /// `MemTotal` from /proc/meminfo, in bytes.
    var memoryBytes: UInt64
    /// `uname -sr` (system and kernel release).
    var kernel: String
    /// The machine architecture (`uname -m`).
    var architecture: String
    /// The first line of `swift --version` of the toolchain on PATH, when found.
    var swiftToolchain: String?
    /// The compiler that built this binary (from `#if compiler`).
    var compiledWith: String
    /// `release` or `debug`.
    var buildConfiguration: String
    /// The commit of the working tree, when run inside a git checkout.
    var gitCommit: String?
    /// When the run started (ISO 8601, UTC).
    var date: String
    /// The load averages (1, 5, 15 min) when the run started.
    var loadAverageAtStart: [Double]

    /// Gathers everything now.
    static func current() -> MachineInfo {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        var names = utsname()
        uname(&names)
        let system = field(of: &names.sysname)
        let release = field(of: &names.release)
        let machine = field(of: &names.machine)
        let swift = CommandOutput.firstLine(of: "swift", ["--version"])
        let commit = CommandOutput.firstLine(of: "git", ["rev-parse", "--short=12", "HEAD"])
        return MachineInfo(
            cpuModel: value(of: "model name", in: cpuinfo) ?? value(of: "Hardware", in: cpuinfo) ?? "unknown",
            cpuMHz: value(of: "cpu MHz", in: cpuinfo).flatMap(Double.init),
            logicalCores: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))),
            memoryBytes: (value(of: "MemTotal", in: meminfo).flatMap(kilobytes) ?? 0) * 1024,
            kernel: "\(system) \(release)",
            architecture: machine,
            swiftToolchain: swift,
            compiledWith: compilerVersion,
            buildConfiguration: buildConfiguration,
            gitCommit: commit,
            date: ISO8601DateFormatter().string(from: Date()),
            loadAverageAtStart: loadAverage()
        )
    }

    /// `release` or `debug`, as this binary was built.
    static var buildConfiguration: String {
        #if DEBUG
            "debug"
        #else
            "release"
        #endif
    }

    /// The compiler version this binary was built with, to the minor version.
    static var compilerVersion: String {
        #if compiler(>=6.5)
            "Swift compiler ≥ 6.5"
        #elseif compiler(>=6.4)
            "Swift compiler 6.4"
        #elseif compiler(>=6.3)
            "Swift compiler 6.3"
        #elseif compiler(>=6.2)
            "Swift compiler 6.2"
        #elseif compiler(>=6.1)
            "Swift compiler 6.1"
        #else
            "Swift compiler 6.0"
        #endif
    }

    /// The 1, 5 and 15 minute load averages from /proc/loadavg (empty when unreadable).
    static func loadAverage() -> [Double] {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return [] }
        return text.split(separator: " ").prefix(3).compactMap { Double($0) }
    }

    /// One line for the table header.
    var summary: String {
        let gib = Double(memoryBytes) / 1_073_741_824
        let load = loadAverageAtStart.map { String(format: "%.2f", $0) }.joined(separator: " ")
        return "\(cpuModel), \(logicalCores) cores, \(String(format: "%.1f", gib)) GiB, \(kernel) \(architecture); "
            + "\(swiftToolchain ?? compiledWith), \(buildConfiguration) build; load \(load); \(date)"
    }

    /// The value of the first `key : value` line in a /proc text.
    private static func value(of key: String, in text: String) -> String? {
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == key else { continue }
            return parts[1].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// `24684512 kB` → 24684512.
    private static func kilobytes(_ text: String) -> UInt64? {
        text.split(separator: " ").first.flatMap { UInt64($0) }
    }

    /// A NUL-terminated `utsname` field as a string.
    private static func field<T>(of tuple: inout T) -> String {
        withUnsafeBytes(of: &tuple) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}

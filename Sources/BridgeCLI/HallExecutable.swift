import SystemCalls

/// `boardbridge hall` runs in an executable of its own, `boardbridge-hall`: it alone links
/// libmicrohttpd (with GnuTLS) and libcurl, so the bridge daemon (`boardbridge run`) never
/// maps or initialises them (README, memory goal). `boardbridge hall …` replaces itself
/// with it (`execv`, the same arguments and PID), so what users type and the systemd unit
/// stay as they were.
public enum HallExecutable {
    /// The hall's executable.
    public static let name = "boardbridge-hall"

    /// Where the hall's executable is looked for, in order, given the path of the running
    /// `boardbridge`: beside it (the build folder, a copy of both), then in
    /// `../libexec/boardbridge/` (the package: `/usr/bin/boardbridge` and
    /// `/usr/libexec/boardbridge/boardbridge-hall`).
    public static func candidates(besides executable: String) -> [String] {
        let directory = parent(of: executable)
        return [
            directory + "/" + name,
            parent(of: directory) + "/libexec/boardbridge/" + name,
        ]
    }

    /// The first of ``candidates(besides:)`` that `isExecutable`, or `nil`.
    public static func locate(besides executable: String, isExecutable: (String) -> Bool) -> String? {
        candidates(besides: executable).first(where: isExecutable)
    }

    /// Runs `boardbridge hall` with `arguments` (the whole `argv`): replaces the process with
    /// the hall's executable and does not return; when it cannot (not installed, not
    /// executable), writes why to `output` and returns ``ExitCode/software``.
    public static func exec(arguments: [String], output: some CLIOutput) -> Int32 {
        guard let executable = ProcessControl.executablePath() else {
            output.writeError("boardbridge: cannot start the hall: /proc/self/exe is unreadable\n")
            return ExitCode.software
        }
        guard let hall = locate(besides: executable, isExecutable: FileSystem.isExecutable) else {
            let looked = candidates(besides: executable).joined(separator: " or ")
            output.writeError(
                "boardbridge: cannot start the hall: \(name) is not installed (looked for \(looked))\n")
            return ExitCode.software
        }
        let error = ProcessControl.replace(with: hall, arguments: arguments)
        output.writeError("boardbridge: cannot start the hall: exec \(hall): \(error)\n")
        return ExitCode.software
    }

    /// `path` without its last component: empty for the root and what is in it (so that
    /// `parent + "/" + name` is right), `.` for a bare name.
    private static func parent(of path: String) -> String {
        guard !path.isEmpty else { return "" }
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "" : String(path[..<slash])
    }
}

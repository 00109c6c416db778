import Config

/// The `boardbridge` command line: parse, run one command, return the exit code.
public enum BoardBridgeCLI {
    /// Runs the command named by `arguments` (without the program name) and returns the
    /// process exit code (``ExitCode``). `environment` supplies `*_env` secrets;
    /// `fileExists` decides the default configuration path.
    public static func run(
        _ arguments: [String], environment: [String: String], output: some CLIOutput,
        fileExists: (String) -> Bool = StandardStreams.fileExists
    ) -> Int32 {
        switch CommandLineParser.parse(arguments) {
        case .failure(let error):
            output.writeError(error.description + "\n")
            return ExitCode.usage
        case .success(.help):
            output.writeOutput(helpText)
            return ExitCode.success
        case .success(.version):
            output.writeOutput(versionText + "\n")
            return ExitCode.success
        case .success(.checkConfig(let explicitPath)):
            let path = ConfigLocation.resolve(explicitPath, fileExists: fileExists)
            let status = checkConfig(path: path, environment: environment, output: output)
            if status != ExitCode.success, explicitPath == nil, !fileExists(path) {
                output.writeError(
                    "boardbridge: no --config given and no \(ConfigLocation.local) in the working directory; "
                        + "use --config PATH\n")
            }
            return status
        }
    }

    /// `check-config`: prints `configuration OK: N boards (path)` or every error.
    static func checkConfig(path: String, environment: [String: String], output: some CLIOutput) -> Int32 {
        do {
            let config = try ConfigLoader.load(path: path, environment: environment)
            let count = config.boards.count
            output.writeOutput("configuration OK: \(count) board\(count == 1 ? "" : "s") (\(path))\n")
            return ExitCode.success
        } catch {
            var text = error.errors.map { "\($0)\n" }.joined()
            let count = error.errors.count
            text += "boardbridge: \(count) configuration error\(count == 1 ? "" : "s") in \(path)\n"
            output.writeError(text)
            return ExitCode.config
        }
    }

    /// The `--version` line: `boardbridge <BoardBridgeVersion.current>`.
    public static let versionText = "boardbridge \(BoardBridgeVersion.current)"

    /// The `--help` text: commands, options, defaults and exit codes.
    public static let helpText = """
        boardbridge \(BoardBridgeVersion.current): bridges Bluetooth LE chess boards to MQTT.

        Usage:
          boardbridge check-config [--config PATH]
          boardbridge --help | -h
          boardbridge --version

        Commands:
          check-config    Load the configuration, list every problem with its file, line
                          and column, and exit. Prints "configuration OK: N boards" when
                          there are none.

        Options:
          --config PATH   The configuration file. Default: \(ConfigLocation.local) in the working
                          directory if it exists, otherwise \(ConfigLocation.system).
          -h, --help      Show this help.
          --version       Show the version.

        Exit codes:
          0               Success.
          64              Usage error: unknown command or option, missing value.
          78              Configuration error: the file is missing, unreadable or invalid.

        """
}

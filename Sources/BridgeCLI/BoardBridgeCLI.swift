import BoardKit
import Bridge
public import Config
import Logging

/// The `boardbridge` command line: parse, run one command, return the exit code.
public enum BoardBridgeCLI {
    /// Runs the command named by `arguments` (without the program name) and returns the
    /// process exit code (``ExitCode``). `environment` supplies `*_env` secrets;
    /// `fileExists` decides the default configuration path.
    public static func run(
        _ arguments: [String], environment: [String: String], output: some CLIOutput,
        fileExists: (String) -> Bool = StandardStreams.fileExists
    ) -> Int32 {
        run(CommandLineParser.parse(arguments), environment: environment, output: output, fileExists: fileExists)
    }

    /// Runs a command line already parsed (``CommandLineParser/parse(_:)``), so that `main`
    /// reads its arguments once: it starts `run` itself and hands everything else here.
    public static func run(
        _ parsed: Result<CLICommand, UsageError>, environment: [String: String], output: some CLIOutput,
        fileExists: (String) -> Bool = StandardStreams.fileExists
    ) -> Int32 {
        switch parsed {
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
        case .success(.decode(let family, let hex)):
            return decode(family: family, hex: hex, output: output, readLine: { Swift.readLine() })
        case .success(.hall):
            output.writeError("boardbridge: hall is served by \(HallExecutable.name), started by the executable\n")
            return ExitCode.software
        case .success(.run):
            output.writeError("boardbridge: run must be started through BoardBridgeCLI.startBridge\n")
            return ExitCode.software
        }
    }

    /// `decode`: one JSON line per event; notifications from `hex`, else from `readLine`.
    static func decode(
        family: BoardFamily, hex: [String], output: some CLIOutput, readLine: () -> String?
    ) -> Int32 {
        var decoder: EventDecoder
        do { decoder = try EventDecoder(family: family) } catch {
            output.writeError("boardbridge: \(error)\n")
            return ExitCode.software
        }
        if hex.isEmpty {
            while let line = readLine() {
                for event in decoder.decode(hex: line) { output.writeOutput(event + "\n") }
            }
        } else {
            for line in hex {
                for event in decoder.decode(hex: line) { output.writeOutput(event + "\n") }
            }
        }
        return ExitCode.success
    }

    /// The configuration of `run` and `hall`, or `nil` after every error was written to
    /// `output` (each with file:line:column, then a count). `run` reads it without
    /// `resolvingHallSecrets`: the bridge never uses the hall's secrets, so a shared file
    /// does not make it need the hall's variables or files.
    public static func loadConfiguration(
        _ configPath: String?, environment: [String: String], output: some CLIOutput,
        fileExists: (String) -> Bool = StandardStreams.fileExists, resolvingHallSecrets: Bool = true
    ) -> BridgeConfiguration? {
        let path = ConfigLocation.resolve(configPath, fileExists: fileExists)
        do {
            return try ConfigLoader.load(
                path: path, environment: environment, resolvingHallSecrets: resolvingHallSecrets)
        } catch {
            var text = error.errors.map { "\($0)\n" }.joined()
            text += "boardbridge: \(error.errors.count) configuration error(s) in \(path)\n"
            output.writeError(text)
            return nil
        }
    }

    /// `run`: loads the configuration and starts the bridge on the main actor. Returns
    /// an exit code when it cannot start, or `nil` when the caller must now run the main
    /// queue (`dispatchMain()`); the bridge exits the process itself on shutdown.
    @MainActor
    public static func startBridge(
        configPath: String?, busAddress: String?, environment: [String: String], output: some CLIOutput,
        fileExists: (String) -> Bool = StandardStreams.fileExists
    ) -> Int32? {
        guard
            let configuration = loadConfiguration(
                configPath, environment: environment, output: output, fileExists: fileExists,
                resolvingHallSecrets: false)
        else { return ExitCode.config }
        do {
            let app = try BridgeApp(configuration: configuration, environment: environment, busAddress: busAddress)
            app.start()
            runningApp = app
            return nil
        } catch {
            output.writeError("boardbridge: cannot start: \(error)\n")
            return ExitCode.config
        }
    }

    /// The running bridge (kept alive for the life of the process).
    @MainActor private static var runningApp: BridgeApp?

    /// `check-config`: prints `configuration OK: N boards (path)` or every error.
    static func checkConfig(path: String, environment: [String: String], output: some CLIOutput) -> Int32 {
        do {
            let config = try ConfigLoader.load(path: path, environment: environment, checkingDevices: true)
            let count = config.boards.count
            output.writeOutput("configuration OK: \(count) board\(count == 1 ? "" : "s") (\(path))\n")
            for warning in config.hall.broadcast.warnings { output.writeError("warning: \(warning)\n") }
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
          boardbridge run [--config PATH] [--bus ADDRESS]
          boardbridge check-config [--config PATH]
          boardbridge decode --family NAME [HEX...]
          boardbridge hall [--config PATH]
          boardbridge --help | -h
          boardbridge --version

        Commands:
          run             Connect to every configured board through BlueZ and bridge it to
                          MQTT until SIGTERM or SIGINT. --bus overrides the D-Bus system bus
                          address (default: $DBUS_SYSTEM_BUS_ADDRESS, else the system bus).
          check-config    Load the configuration, list every problem with its file, line
                          and column, and exit. Prints "configuration OK: N boards" when
                          there are none.
          decode          Decode captured notifications of a board family (chessnut,
                          chessup, squareoff, pegasus, dgt, millennium, certabo, sentio,
                          ichessone, cpp):
                          one hex string per argument, or one per line on stdin (a Certabo or
                          Sentio line as the board sends it, starting with ":", and a cpp
                          command such as "move e2e4", as text).
                          Prints one JSON line per event.
          hall            Serve the arbiter's hall view: every board of every bridge host on
                          the broker, live in a browser (hall: section; docs/hall.md).

        Options:
          --config PATH   The configuration file. Default: \(ConfigLocation.local) in the working
                          directory if it exists, otherwise \(ConfigLocation.system).
          -h, --help      Show this help.
          --version       Show the version.

        Exit codes:
          0               Success.
          64              Usage error: unknown command or option, missing value.
          70              Internal error.
          78              Configuration error: the file is missing, unreadable or invalid.

        """
}

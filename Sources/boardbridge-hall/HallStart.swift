import BridgeCLI
import Hall
import Logging

/// `hall`: loads the configuration and starts the hall view on the main actor.
enum HallStart {
    /// Returns an exit code when the hall cannot start, or `nil` when the caller must now run
    /// the main loop; SIGTERM / SIGINT stop the service and exit (``HallSignals``).
    @MainActor
    static func start(configPath: String?, environment: [String: String], output: some CLIOutput) -> Int32? {
        guard
            let configuration = BoardBridgeCLI.loadConfiguration(
                configPath, environment: environment, output: output)
        else { return ExitCode.config }
        do {
            let logger = Logger(
                label: "hall", level: configuration.logging.level, format: configuration.logging.format)
            let service = try HallService(configuration: configuration, logger: logger)
            service.start()
            running = service
            HallSignals.install { await service.shutdown() }
            return nil
        } catch {
            output.writeError("boardbridge: cannot start the hall: \(error)\n")
            return ExitCode.config
        }
    }

    /// The running hall view (kept alive for the life of the process).
    @MainActor private static var running: HallService?
}

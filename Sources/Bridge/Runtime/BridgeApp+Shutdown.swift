import MainLoop
import SystemCalls

/// The end of a `boardbridge run` process: SIGTERM/SIGINT start a graceful shutdown (a
/// second signal exits at once), the systemd watchdog is fed while it runs.
extension BridgeApp {
    func installSignalHandlers() {
        MainLoop.onSignals([ProcessControl.terminateSignal, ProcessControl.interruptSignal]) { [weak self] number in
            self?.signalled(number)
        }
    }

    func signalled(_ signalNumber: Int32) {
        guard !isStopping else {
            logger.warning("second signal: exiting now")
            ProcessControl.exit(1)
        }
        logger.notice("shutting down", [("signal", String(signalNumber))])
        Task { await shutdown() }
    }

    func startWatchdog() {
        guard let interval = notifier.watchdogInterval else { return }
        watchdog = MainLoop.every(interval / 2) { [weak self] in _ = self?.notifier.notify("WATCHDOG=1") }
    }

    /// The exit status when a restart was asked for and the process could not start itself
    /// again (a supervisor such as systemd's `Restart=on-failure` then does).
    static let restartStatus: Int32 = 75

    /// Publishes `offline`, saves the games, closes the links and flushes MQTT, then exits;
    /// `restarting`: then starts again as the same process (`execv` of its own executable
    /// with the same arguments), or exits with ``restartStatus`` when it cannot.
    public func shutdown(restarting: Bool = false) async {
        guard !isStopping else { return }
        isStopping = true
        // A restart is the same service going on (the same PID, READY=1 again): systemd is
        // not told that it stops.
        if !restarting { notifier.notify("STOPPING=1") }
        // No command is taken from here on.
        commandClient.stop()
        let logger = logger
        MainLoop.after(Self.shutdownDeadline) {
            logger.error("shutdown deadline passed, exiting")
            ProcessControl.exit(1)
        }
        // Each session saves its game; then every handler says its last word (the boards
        // and the bridge go offline, the saved games reach the disk, timers end).
        boards.stopSessions()
        for handler in handlers { handler.stop() }
        await boards.closeLinks()
        manager.stop()
        _ = await client.flush(timeout: .seconds(3))
        client.stop()
        logger.notice(restarting ? "stopped, restarting" : "stopped")
        if restarting {
            if let path = ProcessControl.executablePath() {
                let error = ProcessControl.replace(with: path, arguments: CommandLine.arguments)
                logger.error("cannot restart", [("error", "\(error)")])
            }
            ProcessControl.exit(Self.restartStatus)
        }
        ProcessControl.exit(0)
    }
}

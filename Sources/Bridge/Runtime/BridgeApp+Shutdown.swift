import Dispatch
import SystemCalls

/// The end of a `boardbridge run` process: SIGTERM/SIGINT start a graceful shutdown (a
/// second signal exits at once), the systemd watchdog is fed while it runs.
extension BridgeApp {
    func installSignalHandlers() {
        for signalNumber in [ProcessControl.terminateSignal, ProcessControl.interruptSignal] {
            ProcessControl.ignore(signal: signalNumber)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler { [weak self] in
                MainActor.assumeIsolated { self?.signalled(signalNumber) }
            }
            source.resume()
            signalSources.append(source)
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
        let source = DispatchSource.makeTimerSource(queue: .main)
        source.schedule(deadline: .now() + interval / 2, repeating: interval / 2)
        source.setEventHandler { [weak self] in
            MainActor.assumeIsolated { _ = self?.notifier.notify("WATCHDOG=1") }
        }
        source.resume()
        watchdog = source
    }

    /// Publishes `offline`, saves the games, closes the links and flushes MQTT, then exits.
    public func shutdown() async {
        guard !isStopping else { return }
        isStopping = true
        notifier.notify("STOPPING=1")
        let deadline = DispatchSource.makeTimerSource(queue: .main)
        deadline.schedule(deadline: .now() + Self.shutdownDeadline)
        let logger = logger
        deadline.setEventHandler {
            logger.error("shutdown deadline passed, exiting")
            ProcessControl.exit(1)
        }
        deadline.resume()
        for (id, session) in sessions {
            session.stop()
            publisher.publish(builder.availability(board: id, online: false))
        }
        publisher.publish(builder.bridgeState(online: false))
        discoveryTimer?.cancel()
        health.stop()
        probe.cancel()
        reannounceTimer?.cancel()
        reannounceTimer = nil
        discoveryScan?.stop()
        // Every link's Disconnect at once: bluetoothd holds each link 2 s (DISCONNECT_TIMER)
        // before it answers, so one after the other would pass the deadline at five boards.
        let closing = transports.values.map { transport in Task { await transport.close() } }
        for task in closing { await task.value }
        manager.stop()
        _ = await client.flush(timeout: .seconds(3))
        client.stop()
        stateWriter.flush()
        logger.notice("stopped")
        ProcessControl.exit(0)
    }
}

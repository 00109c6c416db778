import Contract
import FoundationEssentials
import JSON
import MainLoop

/// What this bridge announces on the broker besides its boards' state: Home Assistant discovery
/// (again when Home Assistant comes back online) and the clean-up of what an earlier run left.
extension BridgeApp {
    func publishDiscovery() {
        guard let discovery else { return }
        for message in discovery.bridgeDiscoveryMessages(bridge) { publisher.publish(message) }
        for board in boards {
            for message in discovery.discoveryMessages(for: descriptor(board), bridge: bridge) {
                publisher.publish(message)
            }
        }
    }

    /// Reads what an earlier run announced and prepares its clean-up (``StartupCleanup``).
    func prepareStartupCleanup() {
        let data: Data?
        do {
            data = try store.read(AnnouncedRecord.fileName)
        } catch {
            logger.warning("cannot read the announced boards", [("error", "\(error)")])
            data = nil
        }
        let cleanup = StartupCleanup(
            previous: data.flatMap(AnnouncedRecord.decode), boards: configuration.boards.map(descriptor),
            bridge: bridge, discovery: discovery, builder: builder)
        for id in cleanup.departed {
            logger.notice("board left the configuration: clearing its topics", [("board", id)])
        }
        startupCleanup = cleanup
    }

    /// On the first connection: withdraws stale discovery at once, clears the departed
    /// boards' retained topics a moment later, then remembers what this run announces.
    func runStartupCleanup() {
        guard let cleanup = startupCleanup else { return }
        startupCleanup = nil
        for message in cleanup.withdrawals { publisher.publish(message) }
        let finish = { [weak self] in
            guard let self else { return }
            for message in cleanup.clears { self.publisher.publish(message) }
            do {
                try self.store.write(try JSONEncoder().encode(cleanup.record), as: AnnouncedRecord.fileName)
            } catch {
                self.logger.warning("cannot remember the announced boards", [("error", "\(error)")])
            }
        }
        guard !cleanup.clears.isEmpty else { return finish() }
        MainLoop.after(StartupCleanup.delay) { finish() }
    }

    /// Sends discovery and every board's retained state again after a random delay; further
    /// `online` messages meanwhile are covered by the one pending.
    func scheduleReannouncement() {
        guard reannounceTimer == nil else { return }
        let delay = Double.random(in: HomeAssistantDiscovery.reannounceDelay)
        logger.info(
            "Home Assistant is online: announcing the boards again",
            [("in_seconds", String((delay * 10).rounded() / 10))])
        reannounceTimer = MainLoop.after(delay) { [weak self] in
            guard let self else { return }
            self.reannounceTimer = nil
            self.publishDiscovery()
            for session in self.sessions.values { session.publishRetained() }
        }
    }
}

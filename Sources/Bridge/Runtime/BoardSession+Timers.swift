import FoundationEssentials
import Kernel
import MainLoop

/// The session's timers (the kernel's next deadline, battery requests) and its persistence.
extension BoardSession {
    // MARK: Battery

    /// Asks a board that reports its battery for the level (on `ready` and every
    /// `game.battery_interval` seconds while ready).
    func requestBattery() {
        guard capabilities.contains(.batteryReporting), isReady, transport.state == .connected else { return }
        transport.send(.requestBattery)
    }

    func startBatteryTimer() {
        guard batteryTimer == nil, capabilities.contains(.batteryReporting), batteryInterval > 0 else { return }
        batteryTimer = MainLoop.every(batteryInterval) { [weak self] in self?.requestBattery() }
    }

    // MARK: Time and persistence

    /// Arms the timer for the kernel's next deadline. Called after every event, so it does
    /// nothing while the deadline stays the same (a Dispatch timer cost two round trips
    /// through libdispatch's manager thread per change, which showed in the profile of every
    /// piece lifted; a loop timer costs a heap entry and at most one `timerfd_settime`).
    func scheduleTick() {
        let deadline = [core.nextDeadline, arbiterWatch.nextDeadline].compactMap { $0 }.min()
        guard deadline != armedDeadline else { return }
        armedDeadline = deadline
        guard let deadline else {
            timer?.cancel()
            timer = nil
            return
        }
        let delay = max(0, deadline - clock.now())
        timer?.cancel()
        timer = MainLoop.after(delay) { [weak self] in
            guard let self else { return }
            // Fired: whatever the kernel's deadline is now, it needs arming again.
            self.armedDeadline = nil
            self.timer = nil
            self.tick()
        }
    }

    /// Saves the session through the state writer (a journal line, or the whole snapshot
    /// replaced atomically, now; flushed to disk in the background — with `deferringSync`,
    /// once the writer's deferred flushes are started; failures are logged by the writer's
    /// owner).
    public func persist(deferringSync: Bool = false) {
        let change = core.takeChange()
        store?.saveSession(core.snapshot(at: clock.now()), change: change, as: board.id, deferringSync: deferringSync)
    }

    func date(_ seconds: Double) -> Date {
        Date(timeIntervalSince1970: seconds)
    }
}

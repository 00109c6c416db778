import BoardKit
import BoardLink
import FoundationEssentials

/// Seeking, manual connects, and the reconnect loop.
extension BlueZBoardTransport {
    /// ``start()``: scan until the board appears, connect; a failed connect is retried after
    /// ``BlueZTransportSettings/initialRetryDelay`` by the link runtime's
    /// ``BoardLink/ReconnectRunner`` (in this transport's task), for as long as it takes.
    func runSeek(id: Int) async {
        await runner.attempts(
            .retrying(every: settings.initialRetryDelay),
            ReconnectRunner.Steps(
                waiting: { [weak self] _, _ in
                    self?.activity = .scanning
                    self?.updateState()
                },
                connect: { [weak self] _ in await self?.seekAttempt(id: id) ?? .cancelled },
                failed: { [weak self] _, _ in
                    self?.activity = .scanning
                    self?.updateState()
                },
                gaveUp: { _ in }),
            while: { [weak self] in self?.isCurrent(id) ?? false })
    }

    /// One seek: the board found (waiting as long as it takes), then connected.
    private func seekAttempt(id: Int) async -> LinkAttemptOutcome {
        let path: String
        do throws(BlueZLinkError) {
            path = try await locateBoard(address: nil, requireSeen: true, timeout: nil)
        } catch {
            return .cancelled
        }
        guard isCurrent(id) else { return .cancelled }
        activity = .connecting
        updateState()
        do throws(BlueZLinkError) {
            try await establishLink(devicePath: path, isReconnect: hasBeenConnected || resumesBoardSession)
            return .connected
        } catch .cancelled {
            return .cancelled
        } catch {
            guard isCurrent(id) else { return .cancelled }
            connectFailed(error, then: "scanning again in \(settings.initialRetryDelay) s")
            return .failed(error.description)
        }
    }

    /// ``connect(_:)``.
    func runManualConnect(devicePath: String, id: Int) async {
        do throws(BlueZLinkError) {
            try await establishLink(devicePath: devicePath, isReconnect: false)
        } catch .cancelled {
            return
        } catch {
            guard isCurrent(id) else { return }
            connectFailed(error, then: nil)
            activity = .disconnected
            updateState()
        }
    }

    /// A connect that failed: the board is given back to other transports, the error kept.
    private func connectFailed(_ error: BlueZLinkError, then next: String?) {
        manager.releaseClaims(by: self)
        lastError = error.description
        logger.warning("connect failed: \(error)" + (next.map { "; \($0)" } ?? ""))
    }

    /// The reconnect policy after an unexpected drop, run by the link runtime's
    /// ``BoardLink/ReconnectRunner`` in this transport's task.
    func runReconnect(id: Int) async {
        await runner.attempts(
            policy,
            ReconnectRunner.Steps(
                waiting: { [weak self] attempt, delay in
                    guard let self else { return }
                    self.reconnectAttempt = attempt
                    self.reconnectDelay = delay
                    self.activity = .reconnecting(attempt: attempt)
                    self.logger.info("reconnect attempt \(attempt)/\(self.policy.maxAttempts) in \(delay) s")
                    self.updateState()
                },
                prepare: { [weak self] in
                    guard let self else { return false }
                    return await self.manager.waitUntilPowered(adapter: self.adapterName, using: self.waiter)
                },
                connect: { [weak self] _ in await self?.reconnectAttempt(id: id) ?? .cancelled },
                failed: { [weak self] attempt, reason in
                    guard let self else { return }
                    self.lastError = reason
                    self.logger.warning("reconnect attempt \(attempt) failed: \(reason)")
                },
                gaveUp: { [weak self] attempts in
                    guard let self else { return }
                    self.reconnectAttempt = nil
                    self.reconnectDelay = nil
                    self.activity = .disconnected
                    self.manager.releaseClaims(by: self)
                    self.logger.error(
                        "giving up after \(attempts) reconnect attempt(s); last error: \(self.lastError ?? "none")")
                    self.updateState()
                }),
            while: { [weak self] in self?.isCurrent(id) ?? false })
    }

    /// One reconnect attempt, after its wait.
    private func reconnectAttempt(id: Int) async -> LinkAttemptOutcome {
        // A Disconnect this transport sent (a recycled link) completes first: bluetoothd
        // holds the link ~2 s after it (DISCONNECT_TIMER), and a Connect inside that
        // window succeeds at once only for the link to drop when the hold ends.
        if let pending = pendingDisconnect {
            await pending.value
            pendingDisconnect = nil
            guard isCurrent(id) else { return .cancelled }
        }
        reconnectDelay = nil
        publishStatus()
        do throws(BlueZLinkError) {
            try await waitForManager()
            let path = try await locateBoard(
                address: lastDeviceAddress, requireSeen: false, timeout: settings.rediscoveryTimeout)
            try await establishLink(devicePath: path, isReconnect: true)
            return .connected
        } catch .cancelled {
            return .cancelled
        } catch {
            return .failed(error.description)
        }
    }

    /// The board's device path: the previous link's object when it still exists (only when
    /// `address` is given), a matching device BlueZ already has, or one found by scanning
    /// (`timeout` seconds; `nil` waits forever). With `address` (a reconnect) only that board
    /// qualifies; without, any board ``match`` accepts. The board is claimed at once.
    func locateBoard(
        address: String?, requireSeen: Bool, timeout: TimeInterval?
    ) async throws(BlueZLinkError)
        -> String
    {
        if let address, let last = lastDevicePath, let device = manager.device(at: last),
            isCandidate(device, address: address)
        {
            manager.claim(address: device.address, by: self)
            return last
        }
        if let found = bestCandidate(address: address, requireSeen: requireSeen) {
            manager.claim(address: found.address, by: self)
            return found.path
        }
        let session = manager.startDiscovery(adapter: adapterName)
        seekScan?.stop()
        seekScan = session
        refreshDiscovered()
        defer {
            session.stop()
            if seekScan === session { seekScan = nil }
        }
        let what = address.map { "board \($0)" } ?? "board \(match)"
        do throws(BlueZLinkError) {
            return try await waiter.wait(timeout: timeout, what: what) {
                [weak self] () -> Result<String, BlueZLinkError>? in
                guard let self else { return .failure(.cancelled) }
                // Claimed at once, so that a transport woken by the same change cannot take it too.
                guard let found = self.bestCandidate(address: address, requireSeen: true) else { return nil }
                self.manager.claim(address: found.address, by: self)
                return .success(found.path)
            }
        } catch .timeout {
            throw .deviceNotFound("\(what) not seen within \(timeout ?? 0) s")
        }
    }

    /// Whether `device` is this transport's board: on the configured adapter, not taken by
    /// another transport, and either at `address` or (without one) accepted by ``match``.
    func isCandidate(_ device: BlueZDeviceInfo, address: String? = nil) -> Bool {
        if let adapterName, device.adapterName != adapterName { return false }
        if let address {
            guard device.address == address.uppercased() else { return false }
        } else {
            guard match.matches(device, family: family) else { return false }
        }
        return !manager.isClaimed(address: device.address, byOtherThan: self)
    }

    /// The best device to connect to: connected ones first, then the least busy adapter,
    /// then the strongest signal.
    func bestCandidate(address: String?, requireSeen: Bool) -> BlueZDeviceInfo? {
        let devices = manager.model.devices.values.filter { device in
            isCandidate(device, address: address) && (!requireSeen || device.connected || manager.wasSeen(device.path))
                && manager.model.adapters[device.adapterPath]?.powered == true
        }
        return devices.min { lhs, rhs in
            if lhs.connected != rhs.connected { return lhs.connected }
            let lhsLoad = manager.linkCount(onAdapter: lhs.adapterPath)
            let rhsLoad = manager.linkCount(onAdapter: rhs.adapterPath)
            if lhsLoad != rhsLoad { return lhsLoad < rhsLoad }
            if (lhs.rssi ?? -127) != (rhs.rssi ?? -127) { return (lhs.rssi ?? -127) > (rhs.rssi ?? -127) }
            return lhs.path < rhs.path
        }
    }

    func refreshDiscovered() {
        guard manualScan != nil || seekScan != nil else { return }
        let boards = manager.discoveredBoards.filter { board in
            guard let device = manager.device(at: board.device.token) else { return false }
            if let adapterName, device.adapterName != adapterName { return false }
            return match.matches(device, family: family)
        }
        let list = boards.map(\.device)
        if list != discovered { discovered = list }
    }
}

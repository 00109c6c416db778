import DBus

/// Discovery (§2.1, §3.2): per-sender sessions and filters, advertisement reports while any
/// session exists, RSSI invalidation when the last session ends.
extension FakeAdapter {
    func startDiscovery(_ invocation: DBusMethodInvocation) {
        guard isPowered else { return invocation.fail(BlueZErrors.notReady) }
        guard !sessions.contains(invocation.sender) else { return invocation.fail(BlueZErrors.busy) }
        sessions.append(invocation.sender)
        if sessions.count == 1 { discoveryStarted() }
        invocation.reply()
    }

    func stopDiscovery(_ invocation: DBusMethodInvocation) {
        guard isPowered else { return invocation.fail(BlueZErrors.notReady) }
        guard let index = sessions.firstIndex(of: invocation.sender) else {
            return invocation.fail(BlueZErrors.noDiscoveryStarted)
        }
        sessions.remove(at: index)
        if sessions.isEmpty { discoveryEnded() }
        invocation.reply()
    }

    func setDiscoveryFilter(_ invocation: DBusMethodInvocation) {
        guard isPowered else { return invocation.fail(BlueZErrors.notReady) }
        do throws(DBusError) {
            let filter = try DiscoveryFilter.parse(
                invocation.body.first ?? .array("y", []), allowsAutoConnect: sim.version.atLeast(80))
            filters[invocation.sender] = filter
            invocation.reply()
        } catch {
            invocation.fail(error)
        }
    }

    /// The first session started: `Discovering=true`, boards start to be seen.
    private func discoveryStarted() {
        set("Discovering", .bool(true))
        let interval = sim.behavior.advertisingInterval
        advertisingTimer = RepeatingTimer(interval: interval, initialDelay: min(0.02, interval)) { [weak self] in
            self?.receiveAdvertisements()
        }
        sim.log("\(name) discovering")
    }

    /// The last session ended: `Discovering=false`; RSSI and TxPower of every device seen are
    /// invalidated; temporary devices expire after the temporary timeout.
    func discoveryEnded() {
        advertisingTimer?.cancel()
        advertisingTimer = nil
        set("Discovering", .bool(false))
        for device in devices.values.sorted(by: { $0.path < $1.path }) { device.discoveryEnded() }
        sim.log("\(name) stopped discovering")
    }

    /// One round of advertisement reports: every present, unconnected board of this adapter
    /// that some session's filter accepts.
    func receiveAdvertisements() {
        guard isPowered, isDiscovering else { return }
        let wantsEveryChange = sessions.contains { filters[$0]?.wantsEveryRSSIChange ?? false }
        let duplicateData = sessions.contains { filters[$0]?.duplicateData ?? false }
        for board in sim.boards where board.adapterName == name && board.isPresent && !board.isSerial {
            if let device = devices[board.address], device.hasLink { continue }
            let advertisement = board.advertisement(using: &sim.random)
            guard sessions.contains(where: { filters[$0]?.accepts(advertisement) ?? true }) else { continue }
            if let device = devices[board.address] {
                device.report(advertisement, rssiThreshold: wantsEveryChange ? 0 : 8, duplicateData: duplicateData)
            } else {
                let device = FakeDevice(sim: sim, adapter: self, board: board, advertisement: advertisement)
                devices[board.address] = device
                device.restartTemporaryTimer()
                sim.log("\(name) found \(board.address) '\(board.name)'")
            }
        }
    }
}

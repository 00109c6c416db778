import BoardKit
import DBus
import Foundation
import MainLoop

/// Section 4, a full hall: from the bridge's launch to every board `ready`, with boardsim
/// given LE connect and service-discovery times with jitter, against the floor the radios
/// set (an adapter makes one LE connection at a time: its boards' connect times one after
/// the other, then the last one's discovery). The same after an adapter reset and after a
/// `bluetoothd` restart.
extension StartupSection {
    /// Mean connect and discovery times of the hall (seconds): the delay plus half the jitter.
    static let connect = (delay: 0.2, jitter: 0.1)
    static let discovery = (delay: 0.4, jitter: 0.2)

    func runHall(_ context: BenchContext) async throws {
        let boards = context.quick ? 16 : 64
        let rig = try BridgeRig(
            boards: boards, adapterCount: 4,
            behavior: [
                "connectDelay": Self.connect.delay, "connectJitter": Self.connect.jitter,
                "serviceDiscoveryDelay": Self.discovery.delay, "serviceDiscoveryJitter": Self.discovery.jitter,
            ])
        defer { rig.stop() }
        try await rig.startSupport()
        let meanConnect = Self.connect.delay + Self.connect.jitter / 2
        let meanDiscovery = Self.discovery.delay + Self.discovery.jitter / 2
        let perAdapter = rig.adapters.map { adapter in rig.boardIDs.indices.filter { rig.adapter(of: $0) == adapter } }
        let hallFloor = Double(perAdapter.map(\.count).max() ?? 0) * meanConnect + meanDiscovery

        // Launch.
        try rig.startBridge()
        guard let launched = rig.bridge?.launchedAt else { return }
        let launch = (try await rig.waitUntilReady(rig.boardIDs, timeout: .seconds(120)) - launched).inSeconds
        var sample = rig.bridge?.sample()
        record(
            context, "launch", "launch → every board ready", launch, floor: hallFloor, boards: boards,
            cpu: sample?.cpuSeconds)

        // An adapter reset: hci0 off until its boards are down, then on again.
        let first = perAdapter[0].map { rig.boardIDs[$0] }
        try await rig.controlCall("SetAdapterPowered", values: [.string(rig.adapters[0]), .bool(false)])
        try await rig.waitUntilDown(first, timeout: .seconds(60))
        rig.forgetReady()
        let poweredOn = ContinuousClock.now
        try await rig.controlCall("SetAdapterPowered", values: [.string(rig.adapters[0]), .bool(true)])
        let reset = (try await rig.waitUntilReady(first, timeout: .seconds(120)) - poweredOn).inSeconds
        let adapterFloor = Double(first.count) * meanConnect + meanDiscovery
        let policyDelay = BoardReconnectPolicy().nextDelay(attempt: 1) ?? 0
        record(
            context, "adapter_reset", "\(rig.adapters[0]) powered on again → its \(first.count) boards ready", reset,
            floor: adapterFloor, boards: boards, policyDelay: policyDelay, cpu: Self.cpuSeconds(since: &sample, of: rig)
        )

        // bluetoothd restarted.
        rig.forgetReady()
        let restarted = ContinuousClock.now
        try await rig.restartSimulator()
        let daemon = (try await rig.waitUntilReady(rig.boardIDs, timeout: .seconds(120)) - restarted).inSeconds
        record(
            context, "bluetoothd_restart", "bluetoothd restarted → every board ready", daemon, floor: hallFloor,
            boards: boards, policyDelay: policyDelay, cpu: Self.cpuSeconds(since: &sample, of: rig))
    }

    /// The CPU seconds the rig's bridge used since `last` (``ProcessSampler/usage(from:to:)``),
    /// which becomes its sample now; `nil` when a sample is missing.
    private static func cpuSeconds(since last: inout ProcessSample?, of rig: BridgeRig) -> Double? {
        let now = rig.bridge?.sample()
        defer { last = now }
        guard let now, let last else { return nil }
        return ProcessSampler.usage(from: last, to: now).cpuSeconds
    }

    /// `policyDelay`: the reconnect policy's first wait (BoardKit's default `[2, 4, 8]`),
    /// which a dropped link waits before its first attempt, by the specification.
    /// `cpu`: the bridge's CPU seconds over the phase (the hall's every advertisement is a
    /// D-Bus change each transport hears).
    private func record(
        _ context: BenchContext, _ key: String, _ label: String, _ seconds: Double, floor: Double, boards: Int,
        policyDelay: Double = 0, cpu: Double?
    ) {
        context.record(
            BenchResult(
                key: "startup.hall.\(key)", label: "full hall, \(boards) boards on 4 adapters: \(label)",
                value: seconds * 1e3, unit: "ms",
                // Issue #33: within 1.1× of what the radios allow (and the policy's wait, by the
                // specification, after a drop).
                goal: BenchGoal(
                    direction: .atMost, threshold: (floor + policyDelay) * 1.1e3,
                    text: policyDelay > 0 ? "≤ 1.1× the floor and the policy's wait" : "≤ 1.1× the radios' floor"),
                details: [
                    "floor_ms": floor * 1e3, "ratio": seconds / floor, "policy_delay_ms": policyDelay * 1e3,
                    "ratio_with_policy_delay": seconds / (floor + policyDelay),
                ].merging(cpu.map { ["bridge_cpu_ms": $0 * 1e3] } ?? [:]) { $1 },
                note: String(
                    format: "%.2f× the radios' floor (%.0f ms: per adapter its boards' connects one after the other, "
                        + "%.2f s each on average, then %.2f s of discovery)",
                    seconds / floor, floor * 1e3, Self.connect.delay + Self.connect.jitter / 2,
                    Self.discovery.delay + Self.discovery.jitter / 2)
                    + (policyDelay > 0
                        ? String(
                            format: "; %.2f× it with the reconnect policy's first wait (%.0f s)",
                            seconds / (floor + policyDelay), policyDelay) : "")
                    + (cpu.map { String(format: "; the bridge used %.0f ms of CPU", $0 * 1e3) } ?? "")))
    }
}

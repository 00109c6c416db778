import BoardKit
import DBus
import FakeBlueZ
import Foundation
import MainLoop

/// Section 4, a full hall: from the bridge's launch to every board `ready`, with boardsim
/// given LE connect and service-discovery times with jitter, against the floor the radios
/// set (an adapter makes one LE connection at a time: its boards' connect times one after
/// the other, each followed by its discovery). The floor is taken from the times boardsim
/// drew in the phase (`RadioTimes`); the same from the mean times is kept in the JSON. The
/// same after an adapter reset and after a `bluetoothd` restart.
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
        let hallMeanFloor = Double(perAdapter.map(\.count).max() ?? 0) * meanConnect + meanDiscovery

        // Launch.
        var mark = try await Self.radioTimes(of: rig, since: 0).last?.sequence ?? 0
        try rig.startBridge()
        guard let launched = rig.bridge?.launchedAt else { return }
        let launch = (try await rig.waitUntilReady(rig.boardIDs, timeout: .seconds(120)) - launched).inSeconds
        var sample = rig.bridge?.sample()
        var drawn = try await Self.radioTimes(of: rig, since: mark)
        record(
            context, "launch", "launch → every board ready", launch, floor: Self.floor(drawn), meanFloor: hallMeanFloor,
            boards: boards, cpu: sample?.cpuSeconds)

        // An adapter reset: hci0 off until its boards are down, then on again.
        let first = perAdapter[0].map { rig.boardIDs[$0] }
        try await rig.controlCall("SetAdapterPowered", values: [.string(rig.adapters[0]), .bool(false)])
        try await rig.waitUntilDown(first, timeout: .seconds(60))
        rig.forgetReady()
        mark = try await Self.radioTimes(of: rig, since: 0).last?.sequence ?? 0
        let poweredOn = ContinuousClock.now
        try await rig.controlCall("SetAdapterPowered", values: [.string(rig.adapters[0]), .bool(true)])
        let reset = (try await rig.waitUntilReady(first, timeout: .seconds(120)) - poweredOn).inSeconds
        drawn = try await Self.radioTimes(of: rig, since: mark)
        let adapterMeanFloor = Double(first.count) * meanConnect + meanDiscovery
        let policyDelay = BoardReconnectPolicy().nextDelay(attempt: 1) ?? 0
        record(
            context, "adapter_reset", "\(rig.adapters[0]) powered on again → its \(first.count) boards ready", reset,
            floor: Self.floor(drawn), meanFloor: adapterMeanFloor, boards: boards, policyDelay: policyDelay,
            cpu: Self.cpuSeconds(since: &sample, of: rig))

        // bluetoothd restarted (a new boardsim: its radio times start again).
        rig.forgetReady()
        let restarted = ContinuousClock.now
        try await rig.restartSimulator()
        let daemon = (try await rig.waitUntilReady(rig.boardIDs, timeout: .seconds(120)) - restarted).inSeconds
        drawn = try await Self.radioTimes(of: rig, since: 0)
        record(
            context, "bluetoothd_restart", "bluetoothd restarted → every board ready", daemon, floor: Self.floor(drawn),
            meanFloor: hallMeanFloor, boards: boards, policyDelay: policyDelay,
            cpu: Self.cpuSeconds(since: &sample, of: rig))
    }

    /// boardsim's connect attempts after the one numbered `mark`, oldest first.
    static func radioTimes(of rig: BridgeRig, since mark: UInt64) async throws -> [RadioTime] {
        RadioTime.records(in: try await rig.controlCall("RadioTimes", values: [.uint64(mark)]).first)
    }

    /// What the radios allow for `attempts` (seconds): on each adapter its attempts one after
    /// the other, each link's discovery after its connect (discoveries overlap the next
    /// connects); the slowest adapter's last discovery ends it.
    static func floor(_ attempts: [RadioTime]) -> Double {
        var busyUntil: [String: Double] = [:]
        var end = 0.0
        for attempt in attempts {
            let connected = busyUntil[attempt.adapter, default: 0] + attempt.connect
            busyUntil[attempt.adapter] = connected
            end = max(end, connected + (attempt.discovery ?? 0))
        }
        return end
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
    /// `floor`: from the times boardsim drew; `meanFloor`: the same from the mean times.
    private func record(
        _ context: BenchContext, _ key: String, _ label: String, _ seconds: Double, floor: Double, meanFloor: Double,
        boards: Int, policyDelay: Double = 0, cpu: Double?
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
                    "ratio_with_policy_delay": seconds / (floor + policyDelay), "mean_floor_ms": meanFloor * 1e3,
                    "ratio_to_mean_floor": seconds / meanFloor,
                    "ratio_to_mean_floor_with_policy_delay": seconds / (meanFloor + policyDelay),
                ].merging(cpu.map { ["bridge_cpu_ms": $0 * 1e3] } ?? [:]) { $1 },
                note: String(
                    format: "%.2f× the radios' floor (%.0f ms: per adapter its connects one after the other and the "
                        + "last discovery, as boardsim drew them; %.2f× the %.0f ms of the mean times)",
                    seconds / floor, floor * 1e3, seconds / meanFloor, meanFloor * 1e3)
                    + (policyDelay > 0
                        ? String(
                            format: "; %.2f× it with the reconnect policy's first wait (%.0f s)",
                            seconds / (floor + policyDelay), policyDelay) : "")
                    + (cpu.map { String(format: "; the bridge used %.0f ms of CPU", $0 * 1e3) } ?? "")))
    }
}

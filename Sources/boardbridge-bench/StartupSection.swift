import Foundation
import MainLoop

/// Section 4: start-up — from `boardbridge` process start to `{"state":"online"}` on the
/// bridge state topic and to the first (and last) board's availability online, with 1
/// and 8 simulated Chessnut boards already waiting in boardsim; then a full hall with the
/// radios' own times (``runHall(_:)``).
@MainActor
struct StartupSection: BenchSection {
    let number = 4
    let id = "startup"
    let title = "Start-up: boardbridge launch → bridge online → boards ready"

    func run(_ context: BenchContext) async throws {
        let runs = context.quick ? 1 : 3
        for boards in [1, 8] {
            var bridgeOnline: [Double] = []
            var firstBoard: [Double] = []
            var allBoards: [Double] = []
            var rss: [Double] = []
            for _ in 0..<runs {
                let rig = try BridgeRig(boards: boards)
                defer { rig.stop() }
                try await rig.startSupport()
                try rig.startBridge()
                guard let bridge = rig.bridge, let launched = bridge.launchedAt else { return }
                try await rig.waitUntilOnline(timeout: .seconds(60))
                let deadline = ContinuousClock.now + .seconds(10)
                while rig.onlineAt[BridgeRig.bridgeStateTopic] == nil, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(2))
                }
                guard let online = rig.onlineAt[BridgeRig.bridgeStateTopic] else {
                    throw BenchError(description: "no online state on \(BridgeRig.bridgeStateTopic)")
                }
                let boardTimes = rig.boardIDs.compactMap { rig.onlineAt[BridgeRig.availabilityTopic($0)] }
                guard let first = boardTimes.min(), let last = boardTimes.max() else { continue }
                bridgeOnline.append((online - launched).inSeconds)
                firstBoard.append((first - launched).inSeconds)
                allBoards.append((last - launched).inSeconds)
                rss.append(Double(bridge.sample()?.peakRSSBytes ?? 0) / 1_048_576)
            }
            let note = "median of \(runs) start(s); from spawn to the subscriber's arrival"
            for (key, label, values) in [
                ("bridge_online", "bridge state online", bridgeOnline),
                ("first_board", "first board online", firstBoard),
                ("all_boards", "every board online", allBoards),
            ] {
                let stats = Percentiles(values)
                context.record(
                    BenchResult(
                        key: "startup.\(boards).\(key)", label: "\(boards) boards: launch → \(label)",
                        value: stats.median * 1e3, unit: "ms",
                        details: ["min_ms": stats.minimum * 1e3, "max_ms": stats.maximum * 1e3, "runs": Double(runs)],
                        note: note))
            }
            context.record(
                BenchResult(
                    key: "startup.\(boards).peak_rss", label: "\(boards) boards: peak RSS just after start-up",
                    value: Percentiles(rss).maximum, unit: "MB"))
        }
        try await runHall(context)
    }
}

import Foundation
import TestSupport

/// Section 3 (c): the other boards' moves under a flood of large commands on one board
/// (issue #29, item 4).
extension EndToEndSection {
    /// The size of each flooding command (a `leds` value the bridge refuses).
    static let floodCommandBytes = 60_000

    /// Starts new games on the first `boards` boards (the bridge's `new_game`, the pieces set
    /// up again in boardsim), floods the last board's command topic with large commands from
    /// `mosquitto_pub`, and plays ``game`` on the fresh boards while the bridge reads the
    /// flood. The rig's subscriber reads only the move topics from here on: it would
    /// otherwise receive the flood too, and time its own backlog.
    func playMovesUnderFlood(rig: BridgeRig, boards: Int, commands: Int) async throws -> MoveLatency {
        guard let subscriber = rig.subscriber, let broker = rig.broker, let flooded = rig.boardIDs.last else {
            throw BenchError(description: "the rig is not running")
        }
        subscriber.unsubscribe("boardbridge/#")
        try subscriber.subscribe("boardbridge/+/move", qos: .atLeastOnce)
        try subscriber.subscribe("boardbridge/+", qos: .atLeastOnce)
        let fresh = Array(rig.boardIDs.prefix(boards))
        for board in fresh {
            try subscriber.publish(topic: "boardbridge/\(board)/set", string: #"{"new_game":{}}"#, qos: .atLeastOnce)
            _ = try await rig.controlCall("SetUp", [board, ""])
        }
        try await waitUntilAtStart(rig: rig, boards: fresh)

        let file = rig.directory.appendingPathComponent("flood.lines")
        let line = #"{"leds":""# + String(repeating: "x", count: Self.floodCommandBytes) + "\""
        try TestTools.writeLines(line, count: commands, to: file)
        let flooder = BenchProcess(
            name: "mosquitto_pub", executable: "/bin/sh",
            arguments: [
                "-c", #"exec "$0" -h 127.0.0.1 -p "$1" -t "$2" -q 0 -l < "$3""#,
                try TestTools.require("mosquitto_pub"), String(broker.port), "boardbridge/\(flooded)/set", file.path,
            ])
        try flooder.start()
        defer { flooder.stop(grace: 1) }
        // Let the broker queue a backlog for the bridge before the first move.
        try await Task.sleep(for: .milliseconds(500))
        return try await playMoves(rig: rig, boards: boards)
    }

    /// Waits until the bridge shows each of `boards` at ply 0 and in sync.
    private func waitUntilAtStart(rig: BridgeRig, boards: [String]) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            let ready = boards.allSatisfy { board in
                guard let state = rig.latest["boardbridge/\(board)"] else { return false }
                return state.contains(#""ply":0"#) && state.contains(#""state":"in_sync""#)
            }
            if ready { return }
            guard ContinuousClock.now < deadline else {
                throw BenchError(description: "the new games did not start in sync on \(boards)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

import Adapters
import BoardKit
import Chess
import Foundation
import Kernel
import TestSupport

/// One random game played by hand on an emulated board, as the bridge would receive it.
struct RecordedGame {
    /// The board family.
    let family: BoardFamily
    /// The moves played.
    let moves: [Move]
    /// The link after the game: its notifications (with origins) and timed events.
    let link: EmulatedLink
    /// The adapter as it was before the first recorded notification.
    let adapterTemplate: any BoardAdapter

    /// The notifications a person's actions caused (board changes only).
    var actionNotifications: [Data] {
        zip(link.notifications, link.origins).compactMap { $0.1 == .action ? $0.0 : nil }
    }
}

/// Builds the frame and event streams of the pure-core benchmarks from the emulated boards.
enum FrameCorpus {
    /// Seconds between two hand movements.
    static let actionGap: TimeInterval = 0.3
    /// Seconds between the last movement of a move and the first of the next.
    static let thinkTime: TimeInterval = 1.0

    /// `count` random games of up to `maxPlies` plies on fresh boards of `family`: a
    /// connect and handshake, then each move played by hand (one movement every
    /// ``actionGap`` s, ``thinkTime`` s between moves, the firmware ticking meanwhile),
    /// then 10 quiet seconds.
    static func games(family: BoardFamily, count: Int, maxPlies: Int, seed: UInt64) throws -> [RecordedGame] {
        var games: [RecordedGame] = []
        for index in 0..<count {
            let gameSeed = seed &+ UInt64(index) &* 0x9E37_79B9
            let moves = RandomGames.game(seed: gameSeed, maxPlies: maxPlies)
            var link = try EmulatedLink(family: family)
            link.connect()
            let template = link.adapterAtRecordingStart ?? link.adapter
            var generator = SeededGenerator(seed: gameSeed ^ 0xA5A5)
            for move in moves {
                link.play(move, actionGap: actionGap, using: &generator)
                link.idle(for: thinkTime)
            }
            link.idle(for: 10)
            games.append(RecordedGame(family: family, moves: moves, link: link, adapterTemplate: template))
        }
        return games
    }

    /// A Chessnut board left alone for `seconds` after connecting: its ~10/s state stream,
    /// every frame with the same 32 board bytes (only the uptime counter changes). Returns
    /// the adapter that has already seen the board, and the frames.
    static func chessnutIdle(seconds: TimeInterval) throws -> (adapter: any BoardAdapter, frames: [Data]) {
        var link = try EmulatedLink(family: .chessnut)
        link.connect()
        let template = link.adapterAtRecordingStart ?? link.adapter
        link.idle(for: seconds)
        return (template, link.notifications)
    }

    /// Feeds `frames` to a copy of `template`, draining pending responses as a transport
    /// does; returns how many events came out.
    @inline(__always)
    static func feed(_ frames: [Data], to template: any BoardAdapter) -> Int {
        var adapter = template
        var events = 0
        for frame in frames {
            events &+= adapter.feed(bytes: frame).count
            events &+= adapter.takePendingResponses().count
        }
        return events
    }

    /// Replays `events` into `session` the way the bridge drives it: a due deadline is
    /// ticked before the next event, and a final tick 10 s after the last event lets
    /// pending commits through. Returns the number of outputs.
    static func replay(_ events: [(event: BoardEvent, time: TimeInterval)], into session: inout GameSession) -> Int {
        var outputs = 0
        var last: TimeInterval = 0
        for (event, time) in events {
            if let deadline = session.nextDeadline, deadline <= time { outputs &+= session.tick(at: time).count }
            outputs &+= session.handle(event, at: time).count
            last = time
        }
        outputs &+= session.tick(at: last + 10).count
        return outputs
    }

    /// A fresh session for a board with `capabilities` (default options, unlimited time).
    static func session(for capabilities: BoardCapabilities) -> GameSession {
        GameSession(inputPath: TrackerInputPath(capabilities: capabilities))
    }
}

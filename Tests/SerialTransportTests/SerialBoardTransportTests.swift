import Adapters
import BoardKit
import Emulation
import Foundation
import SerialTransport
import TestSupport
import Testing

/// Records a transport's events.
@MainActor
final class Recorder {
    var events: [BoardEvent] = []
    var task: Task<Void, Never>?

    init(_ stream: AsyncStream<BoardEvent>) {
        task = Task { @MainActor [weak self] in
            for await event in stream { self?.events.append(event) }
        }
    }

    /// The board as the last ``BoardEvent/pieces(_:)`` showed it. The handshake's last
    /// answers (the clock's, the battery's) may come after a move's field updates, so a
    /// move is checked against this, not against the last event.
    var lastPieces: BoardSnapshot? {
        for event in events.reversed() { if case .pieces(let board) = event { return board } }
        return nil
    }
}

/// The serial transport against an emulated DGT e-Board behind a real pseudo-terminal.
@MainActor
@Suite(.serialized) struct SerialBoardTransportTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serial-board-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func afterE4() -> BoardSnapshot {
        var board = BoardSnapshot.startingPosition
        board[.e2] = nil
        board[.e4] = Piece(.white, .pawn)
        return board
    }

    @Test func handshakeReadsTheBoardAndMovesArrive() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let board = SimulatedSerialBoard(DGTPersonality(), folder: folder)
        try board.plug()
        defer { board.unplug() }
        let transport = SerialBoardTransport(path: board.linkPath) { DGTAdapter() }
        let recorder = Recorder(transport.events)
        transport.startScan()
        #expect(transport.discovered.map(\.name) == [board.linkPath])
        transport.connect(transport.device)
        #expect(
            await eventually(timeout: .seconds(60)) { recorder.events.contains(.pieces(.startingPosition)) },
            "\(recorder.events)")
        #expect(recorder.events.first == .connected)
        #expect(recorder.events.contains(.ready))
        #expect(recorder.events.contains(.serialNumber("12345")))
        #expect(recorder.events.contains(.version("1.2")))
        board.perform(.lift(.e2))
        board.perform(.place(Piece(.white, .pawn), on: .e4))
        #expect(
            await eventually(timeout: .seconds(60)) { recorder.lastPieces == Self.afterE4() },
            "\(recorder.events.suffix(5))")
        #expect(board.personality.violations.total == 0)
        transport.disconnect()
        #expect(transport.state == .disconnected)
        #expect(await eventually(timeout: .seconds(60)) { recorder.events.last == .disconnected(error: nil) })
    }

    @Test func unplugAndReplugMidGameLosesNoMove() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let board = SimulatedSerialBoard(DGTPersonality(), folder: folder)
        try board.plug()
        let transport = SerialBoardTransport(
            path: board.linkPath, policy: BoardReconnectPolicy(maxAttempts: 50, delays: [0.1])
        ) { DGTAdapter() }
        let recorder = Recorder(transport.events)
        transport.connect(transport.device)
        #expect(await eventually(timeout: .seconds(60)) { recorder.events.contains(.pieces(.startingPosition)) })
        board.unplug()
        #expect(
            await eventually(timeout: .seconds(60)) {
                recorder.events.contains { if case .disconnected(.some) = $0 { true } else { false } }
            })
        #expect(
            await eventually(timeout: .seconds(60)) { if case .reconnecting = transport.state { true } else { false } })
        // The move is made while the board is unplugged: the dump after the replug shows it.
        board.perform(.lift(.e2))
        board.perform(.place(Piece(.white, .pawn), on: .e4))
        try board.plug()
        defer { board.unplug() }
        #expect(
            await eventually(timeout: .seconds(60)) { recorder.lastPieces == Self.afterE4() },
            "\(recorder.events.suffix(5))")
        #expect(transport.state == .connected)
        #expect(recorder.events.filter { $0 == .connected }.count == 2)
        transport.disconnect()
    }

    /// A stalled board's line is recycled: dropped as an unplug is, then reopened.
    @Test func aRecycledLineIsReopened() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let board = SimulatedSerialBoard(DGTPersonality(), folder: folder)
        try board.plug()
        defer { board.unplug() }
        let transport = SerialBoardTransport(
            path: board.linkPath, policy: BoardReconnectPolicy(maxAttempts: 5, delays: [0.05])
        ) { DGTAdapter() }
        let recorder = Recorder(transport.events)
        transport.start()
        #expect(await eventually(timeout: .seconds(60)) { recorder.events.contains(.pieces(.startingPosition)) })
        transport.recycleLink(reason: "stalled")
        #expect(await eventually(timeout: .seconds(60)) { recorder.events.contains(.disconnected(error: "stalled")) })
        #expect(
            await eventually(timeout: .seconds(60)) {
                recorder.events.filter { $0 == .pieces(.startingPosition) }.count == 2
            })
        #expect(recorder.events.filter { $0 == .connected }.count == 2)
        #expect(transport.state == .connected)
        await transport.close()
        #expect(transport.state == .disconnected)
    }

    @Test func aMissingDeviceIsRetriedThenGivenUp() async throws {
        let transport = SerialBoardTransport(
            path: "/dev/serial/by-id/no-such-board", policy: BoardReconnectPolicy(maxAttempts: 2, delays: [0.05])
        ) { DGTAdapter() }
        transport.startScan()
        #expect(transport.discovered.isEmpty)
        transport.connect(transport.device)
        #expect(await eventually(timeout: .seconds(60)) { transport.state == .disconnected })
        #expect(transport.lastError?.hasPrefix("open /dev/serial/by-id/no-such-board: ") == true)
    }
}

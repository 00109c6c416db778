import Adapters
import BoardKit
import Foundation
import MainLoop
import SystemCalls
import TestSupport
import Testing

@testable import BlueZ

/// The notification path's receive buffer, which hands datagrams on as slices of one
/// reused `Data`.
@Suite struct BlueZDatagramBufferTests {
    /// A connected `AF_UNIX` `SOCK_SEQPACKET` pair (BlueZ's `AcquireNotify` socket type).
    private func socketPair() throws -> (Int32, Int32) {
        var descriptors: [Int32] = [-1, -1]
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        try #require(socketpair(AF_UNIX, type, 0, &descriptors) == 0)
        return (descriptors[0], descriptors[1])
    }

    private func send(_ bytes: [UInt8], on descriptor: Int32) throws {
        let sent = bytes.withUnsafeBytes { Foundation.send(descriptor, $0.baseAddress, $0.count, 0) }
        try #require(sent == bytes.count)
    }

    @Test func aKeptDatagramKeepsItsBytesAcrossLaterReads() throws {
        let (reader, writer) = try socketPair()
        defer {
            close(reader)
            close(writer)
        }
        let buffer = BlueZDatagramBuffer(slots: 4, slotSize: 64)
        let first: [UInt8] = [0x01, 0x24] + Array(repeating: 0x58, count: 36)
        try send(first, on: writer)
        let (count, _) = buffer.receive(from: reader, limit: 4)
        #expect(count == 1)
        let kept = try #require(buffer.datagram(0))
        #expect(kept.startIndex == 0)
        #expect(Array(kept) == first)

        let second: [UInt8] = Array(repeating: 0xA7, count: 20)
        try send(second, on: writer)
        let (secondCount, _) = buffer.receive(from: reader, limit: 4)
        #expect(secondCount == 1)
        #expect(buffer.datagram(0).map(Array.init) == second)
        // The first datagram, still held, was not overwritten by the second read.
        #expect(Array(kept) == first)
    }

    /// #33: the datagrams waiting come in one `recvmmsg`, in order, up to the limit; the rest
    /// in the next read.
    @Test func theDatagramsWaitingComeInOneReadUpToTheLimit() throws {
        let (reader, writer) = try socketPair()
        defer {
            close(reader)
            close(writer)
        }
        let buffer = BlueZDatagramBuffer(slots: 4, slotSize: 64)
        let datagrams: [[UInt8]] = (1...6).map { Array(repeating: UInt8($0), count: $0 * 5) }
        for datagram in datagrams { try send(datagram, on: writer) }
        let (first, _) = buffer.receive(from: reader, limit: 4)
        #expect(first == 4)
        #expect((0..<4).map { buffer.datagram($0).map(Array.init) } == Array(datagrams[0..<4]))
        let (rest, _) = buffer.receive(from: reader, limit: 4)
        #expect(rest == 2)
        #expect((0..<2).map { buffer.datagram($0).map(Array.init) } == Array(datagrams[4...]))
    }

    @Test func anEmptySocketAndAClosedPeerAreReported() throws {
        let (reader, writer) = try socketPair()
        defer { close(reader) }
        let buffer = BlueZDatagramBuffer(slots: 4, slotSize: 64)
        let (nothing, error) = buffer.receive(from: reader, limit: 4)
        #expect(nothing == -1)
        #expect(error == EAGAIN || error == EWOULDBLOCK)
        // A last datagram, then the end: the datagram first, then an empty read.
        try send([0x42], on: writer)
        close(writer)
        let (end, endError) = buffer.receive(from: reader, limit: 4)
        #expect(end >= 2)
        #expect(endError == 0)
        #expect(buffer.datagram(0).map(Array.init) == [0x42])
        #expect(buffer.datagram(1) == nil)
    }

    /// #29: each datagram carries when it reached the kernel, however long it then waited to
    /// be read; without the socket option, nothing (not a guess).
    @MainActor @Test func eachDatagramSaysWhenItReachedTheKernel() throws {
        let (reader, writer) = try socketPair()
        defer {
            close(reader)
            close(writer)
        }
        let buffer = BlueZDatagramBuffer(slots: 4, slotSize: 64)
        try send([0x01], on: writer)
        _ = buffer.receive(from: reader, limit: 4)
        #expect(arrival(of: 0, in: buffer) == nil)

        try FileDescriptor(rawValue: reader).enableReceiveTimestamps()
        let beforeSend = ContinuousClock.now
        try send([0x02], on: writer)
        try send([0x03], on: writer)
        let afterSend = ContinuousClock.now
        // The datagrams wait in the socket a quarter of a second (a long handler elsewhere).
        usleep(250_000)
        let (count, _) = buffer.receive(from: reader, limit: 4)
        let afterRead = ContinuousClock.now
        #expect(count == 2)
        for index in 0..<2 {
            let arrival = try #require(self.arrival(of: index, in: buffer))
            // The wall clock and the monotonic one are read a few microseconds apart.
            #expect(arrival >= beforeSend - .milliseconds(20), "\(beforeSend - arrival)")
            #expect(arrival <= afterSend + .milliseconds(20), "\(arrival - afterSend)")
            #expect(afterRead - arrival >= .milliseconds(200))
        }
    }

    /// Datagram `index`'s arrival as the reader hands it on (``MainLoop/inputReceivedAt``).
    @MainActor private func arrival(of index: Int, in buffer: BlueZDatagramBuffer) -> ContinuousClock.Instant? {
        var arrival: ContinuousClock.Instant?
        MainLoop.handlingInput(readAt: buffer.readAt, waited: buffer.waited(index)) {
            arrival = MainLoop.inputReceivedAt
        }
        return arrival
    }

    @Test func aDatagramLongerThanItsSlotIsTruncated() throws {
        let (reader, writer) = try socketPair()
        defer {
            close(reader)
            close(writer)
        }
        let buffer = BlueZDatagramBuffer(slots: 2, slotSize: 16)
        try send(Array(0..<40), on: writer)
        try send([7, 8, 9], on: writer)
        let (count, _) = buffer.receive(from: reader, limit: 2)
        #expect(count == 2)
        #expect(buffer.datagram(0).map(Array.init) == Array(0..<16))
        #expect(buffer.datagram(1).map(Array.init) == [7, 8, 9])
    }
}

/// The loop hands on each notification with when it reached the kernel.
@MainActor
@Suite struct BlueZNotifySocketArrivalTests {
    /// #29: a notification that waited behind a long handler is handed on with its arrival
    /// (``MainLoop/inputReceivedAt``), which is `nil` again once it is handled.
    @Test func aNotificationQueuedBehindALongHandlerIsHandedOnWithItsArrival() async throws {
        var descriptors: [Int32] = [-1, -1]
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        try #require(socketpair(AF_UNIX, type, 0, &descriptors) == 0)
        let writer = descriptors[1]
        defer { close(writer) }
        var handled: [(receivedAt: ContinuousClock.Instant?, at: ContinuousClock.Instant)] = []
        let socket = BlueZNotifySocket(
            descriptor: descriptors[0], onDatagram: { _ in handled.append((MainLoop.inputReceivedAt, .now)) },
            onClose: { _ in })
        defer { socket.close() }
        let sent = ContinuousClock.now
        let sentBytes = [UInt8](repeating: 0x24, count: 38).withUnsafeBytes {
            Foundation.send(writer, $0.baseAddress, $0.count, 0)
        }
        try #require(sentBytes == 38)
        // The main actor busy for a quarter of a second: the loop cannot read the socket.
        usleep(250_000)
        #expect(await eventually { !handled.isEmpty })
        let first = try #require(handled.first)
        let arrival = try #require(first.receivedAt)
        #expect(arrival <= sent + .milliseconds(50), "\(arrival - sent) after the send")
        #expect(first.at - arrival >= .milliseconds(200))
        #expect(MainLoop.inputReceivedAt == nil)
    }
}

/// What a reader takes in when asked for everything waiting.
@MainActor
@Suite struct BlueZNotifySocketTakeTests {
    /// Asked for up to 600 (``BlueZBoardTransport/takeWaitingInput()``, before a command or
    /// a handshake's deadline is judged), a socket hands on every datagram waiting, in
    /// order, across as many reads as that takes: it took one read's 16, and the rest were
    /// judged as if the board had not sent them.
    @Test func everyDatagramWaitingIsTakenInWhenAskedForAll() throws {
        var descriptors: [Int32] = [-1, -1]
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        try #require(socketpair(AF_UNIX, type, 0, &descriptors) == 0)
        let writer = descriptors[1]
        defer { close(writer) }
        var handled: [UInt8] = []
        var closed: [String] = []
        let socket = BlueZNotifySocket(
            descriptor: descriptors[0], onDatagram: { handled.append($0.first ?? 0) },
            onClose: { closed.append($0) })
        defer { socket.close() }
        let count = BlueZNotifySocket.datagramsPerWake * 3 + 5
        for index in 0..<count {
            let sent = [UInt8(index), 0x24].withUnsafeBytes { Foundation.send(writer, $0.baseAddress, $0.count, 0) }
            try #require(sent == 2)
        }
        socket.readWaiting(limit: 600)
        #expect(handled == (0..<count).map { UInt8($0) })
        #expect(closed.isEmpty)
        #expect(socket.isOpen)
        // A limit is kept: of 5 more, 3 are taken, the rest wait for the next read.
        for index in 0..<5 {
            let sent = [UInt8(200 + index)].withUnsafeBytes { Foundation.send(writer, $0.baseAddress, $0.count, 0) }
            try #require(sent == 1)
        }
        socket.readWaiting(limit: 3)
        #expect(handled.suffix(3) == [200, 201, 202])
        socket.readWaiting(limit: 600)
        #expect(handled.suffix(2) == [203, 204])
        #expect(handled.count == count + 5)
    }
}

/// Ending a link from inside the handling of one of its own notifications.
@MainActor
@Suite(.serialized, .enabled(if: TestTools.available("dbus-daemon")))
struct BlueZNotifySocketTeardownTests {
    @Test func aHandlerThatDisconnectsOnANotificationEndsTheLinkAndReleasesIt() async throws {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.chessnut])
        defer { fixture.stop() }
        fixture.manager.start()
        var settings = SimulatorFixture.settings
        settings.notifyMethod = .acquireNotify
        let transport = try fixture.transport(.chessnut, settings: settings)
        var delivered: [BoardEvent] = []
        var disconnectOnMove = false
        transport.deliverEvents { event in
            delivered.append(event)
            guard disconnectOnMove, case .pieces(let snapshot) = event, snapshot[.e4] == Piece(.white, .pawn) else {
                return
            }
            // Called while the transport handles the datagram that carried this event.
            disconnectOnMove = false
            transport.disconnect()
        }
        transport.start()
        #expect(await eventually { delivered.contains(.ready) }, "\(fixture.log.text)")
        let sockets = transport.link?.notifySockets.count ?? 0
        #expect(sockets > 0, "AcquireNotify was not used: \(fixture.log.text)")
        weak let link = transport.link
        disconnectOnMove = true
        try await fixture.play("chessnut", ["e2e4"], pace: 0.02)
        #expect(await eventually { transport.state == .disconnected }, "events \(delivered.suffix(5))")
        // `.disconnected` comes after the event being handled (queued behind it).
        #expect(await eventually { delivered.last == .disconnected(error: nil) }, "events \(delivered.suffix(5))")
        // Nothing (a notification socket's handler) keeps the ended link alive.
        #expect(await eventually { link == nil })

        // A new link works as before.
        let before = delivered.count
        transport.start()
        #expect(await eventually { delivered[before...].contains(.ready) }, "\(fixture.log.text)")
        transport.disconnect()
    }
}

import Adapters
import BoardKit
import Foundation
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
        let buffer = BlueZDatagramBuffer(capacity: 64)
        let first: [UInt8] = [0x01, 0x24] + Array(repeating: 0x58, count: 36)
        try send(first, on: writer)
        let (count, _) = buffer.receive(from: reader)
        #expect(count == first.count)
        let kept = buffer.datagram(count: count)
        #expect(kept.startIndex == 0)
        #expect(Array(kept) == first)

        let second: [UInt8] = Array(repeating: 0xA7, count: 20)
        try send(second, on: writer)
        let (secondCount, _) = buffer.receive(from: reader)
        #expect(secondCount == second.count)
        #expect(Array(buffer.datagram(count: secondCount)) == second)
        // The first datagram, still held, was not overwritten by the second read.
        #expect(Array(kept) == first)
    }

    @Test func anEmptySocketAndAClosedPeerAreReported() throws {
        let (reader, writer) = try socketPair()
        defer { close(reader) }
        let buffer = BlueZDatagramBuffer(capacity: 64)
        let (nothing, error) = buffer.receive(from: reader)
        #expect(nothing == -1)
        #expect(error == EAGAIN || error == EWOULDBLOCK)
        close(writer)
        let (end, endError) = buffer.receive(from: reader)
        #expect(end == 0)
        #expect(endError == 0)
    }

    @Test func aDatagramLongerThanTheBufferIsTruncated() throws {
        let (reader, writer) = try socketPair()
        defer {
            close(reader)
            close(writer)
        }
        let buffer = BlueZDatagramBuffer(capacity: 16)
        try send(Array(0..<40), on: writer)
        let (count, _) = buffer.receive(from: reader)
        #expect(count == 16)
        #expect(Array(buffer.datagram(count: count)) == Array(0..<16))
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

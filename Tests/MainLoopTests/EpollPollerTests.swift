import Foundation
import MainLoop
import Testing

/// A connected `AF_UNIX` `SOCK_SEQPACKET` pair, closed at the end of the test.
final class SocketPair {
    let left: Int32
    let right: Int32
    private var open: Set<Int32>

    init() throws {
        var descriptors: [Int32] = [-1, -1]
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &descriptors) == 0 else { throw POSIXError(.EIO) }
        left = descriptors[0]
        right = descriptors[1]
        open = [left, right]
    }

    func send(_ bytes: [UInt8], from descriptor: Int32) {
        let sent = bytes.withUnsafeBytes { Foundation.send(descriptor, $0.baseAddress, $0.count, 0) }
        precondition(sent == bytes.count)
    }

    func receive(_ descriptor: Int32) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        return count > 0 ? Array(buffer[0..<count]) : []
    }

    func close(_ descriptor: Int32) {
        guard open.remove(descriptor) != nil else { return }
        _ = Foundation.close(descriptor)
    }

    /// The descriptor was closed by someone else (the code under test): forget it.
    func forget(_ descriptor: Int32) {
        open.remove(descriptor)
    }

    deinit {
        for descriptor in open { _ = Foundation.close(descriptor) }
    }
}

@Suite struct EpollPollerTests {
    @Test func runsTheHandlerOfAReadableDescriptorOnly() throws {
        let poller = try #require(EpollPoller<() -> Void>())
        let first = try SocketPair()
        let second = try SocketPair()
        var calls: [String] = []
        #expect(poller.add(first.left) { calls.append("first \(first.receive(first.left))") })
        #expect(poller.add(second.left) { calls.append("second \(second.receive(second.left))") })
        #expect(poller.count == 2)
        #expect(poller.poll(timeoutMilliseconds: 0) == 0)
        first.send([1, 2, 3], from: first.right)
        #expect(poller.poll(timeoutMilliseconds: 1000) == 1)
        #expect(calls == ["first [1, 2, 3]"])
        // Level-triggered: read, so nothing is left to report.
        #expect(poller.poll(timeoutMilliseconds: 0) == 0)
    }

    /// #33: the instant a wake-up found descriptors ready is there while their handlers run
    /// (the bridge times a move from it); a wait that finds nothing leaves it as it was.
    @Test func theWakeUpIsNotedBeforeTheHandlersRun() throws {
        let poller = try #require(EpollPoller<() -> Void>())
        let pair = try SocketPair()
        var seen: [ContinuousClock.Instant?] = []
        let added = poller.add(pair.left) { [unowned poller] in
            _ = pair.receive(pair.left)
            seen.append(poller.lastWake)
        }
        #expect(added)
        #expect(poller.lastWake == nil)
        #expect(poller.poll(timeoutMilliseconds: 0) == 0)
        #expect(poller.lastWake == nil)
        pair.send([1], from: pair.right)
        let before = ContinuousClock.now
        #expect(poller.poll(timeoutMilliseconds: 1000) == 1)
        let after = ContinuousClock.now
        let woke = try #require(seen.first ?? nil)
        #expect(woke >= before && woke <= after)
        #expect(poller.lastWake == woke)
        #expect(poller.poll(timeoutMilliseconds: 0) == 0)
        #expect(poller.lastWake == woke)
    }

    @Test func aDatagramLeftUnreadIsReportedAgain() throws {
        let poller = try #require(EpollPoller<() -> Void>())
        let pair = try SocketPair()
        var calls = 0
        poller.add(pair.left) { calls += 1 }
        pair.send([9], from: pair.right)
        #expect(poller.poll(timeoutMilliseconds: 1000) == 1)
        #expect(poller.poll(timeoutMilliseconds: 0) == 1)
        #expect(calls == 2)
        #expect(pair.receive(pair.left) == [9])
        #expect(poller.poll(timeoutMilliseconds: 0) == 0)
    }

    @Test func aRemovedDescriptorIsNoLongerReported() throws {
        let poller = try #require(EpollPoller<() -> Void>())
        let pair = try SocketPair()
        var calls = 0
        poller.add(pair.left) { calls += 1 }
        poller.remove(pair.left)
        poller.remove(pair.left)  // unknown now: ignored
        #expect(poller.count == 0)
        pair.send([1], from: pair.right)
        #expect(poller.poll(timeoutMilliseconds: 0) == 0)
        #expect(calls == 0)
    }

    @Test func aHandlerRemovingAnotherReadyDescriptorStopsItsHandler() throws {
        let poller = try #require(EpollPoller<() -> Void>())
        let first = try SocketPair()
        let second = try SocketPair()
        var ran: [Int32] = []
        poller.add(first.left) {
            ran.append(first.left)
            poller.remove(second.left)
        }
        poller.add(second.left) {
            ran.append(second.left)
            poller.remove(first.left)
        }
        first.send([1], from: first.right)
        second.send([2], from: second.right)
        // Both are ready in one batch; whichever runs first unregisters the other.
        #expect(poller.poll(timeoutMilliseconds: 1000) == 1)
        #expect(ran.count == 1)
    }

    /// A descriptor closed without being removed leaves the epoll set (the kernel drops it)
    /// but not the poller's table; the next descriptor given its number must still be
    /// watchable (the poller's `EPOLL_CTL_MOD` found nothing to change and failed).
    @Test func aNumberClosedWithoutRemovalCanBeWatchedAgain() throws {
        let poller = try #require(EpollPoller<() -> Void>())
        let first = try SocketPair()
        var calls: [String] = []
        #expect(poller.add(first.left) { calls.append("first") })
        let number = first.left
        let second = try SocketPair()
        // `dup2` closes the first socket (the kernel drops it from the epoll set) and gives
        // its number to the second pair's left end in one step: no other thread of the test
        // run can take the number in between, as it could between a close and a new socket.
        #expect(dup2(second.left, number) == number)
        first.close(first.right)
        let (reused, peer) = (number, second.right)
        #expect(poller.add(reused) { calls.append("second \(second.receive(reused))") })
        second.send([5], from: peer)
        #expect(poller.poll(timeoutMilliseconds: 1000) == 1)
        #expect(calls == ["second [5]"])
    }

    @Test func aClosedPeerIsReportedAsReadableWithEndOfFile() throws {
        let poller = try #require(EpollPoller<() -> Void>())
        let pair = try SocketPair()
        var received: [[UInt8]] = []
        var endOfFile = false
        poller.add(pair.left) {
            var buffer = [UInt8](repeating: 0, count: 16)
            let count = buffer.withUnsafeMutableBytes {
                recv(pair.left, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if count > 0 { received.append(Array(buffer[0..<count])) } else if count == 0 { endOfFile = true }
        }
        pair.send([7, 7], from: pair.right)
        pair.close(pair.right)
        #expect(poller.poll(timeoutMilliseconds: 1000) == 1)
        #expect(received == [[7, 7]])
        #expect(poller.poll(timeoutMilliseconds: 1000) == 1)
        #expect(endOfFile)
    }

    @Test func invalidDescriptorsAreRefused() throws {
        let poller = try #require(EpollPoller<() -> Void>())
        #expect(!poller.add(-1) {})
        #expect(!poller.add(987_654) {})
        #expect(poller.count == 0)
    }
}

@MainActor
@Suite struct DescriptorWatchTests {
    /// Without ``MainLoop/activate()`` (as in every test process) the loop is hosted on the
    /// main queue: the watch is still served, on the main actor. Cancelling is synchronous:
    /// an owned descriptor is closed when ``DescriptorWatch/cancel()`` returns (a Dispatch
    /// source closed it later, in its cancel handler, after libdispatch had unregistered it).
    @Test func callsItsHandlerOnTheMainActorAndClosesItsDescriptorWhenCancelled() async throws {
        #expect(!MainLoop.isActive)
        let pair = try SocketPair()
        var received: [[UInt8]] = []
        let watch = DescriptorWatch(descriptor: pair.left, closesDescriptor: true) {
            MainActor.preconditionIsolated()
            received.append(pair.receive(pair.left))
        }
        pair.forget(pair.left)
        pair.send([4, 2], from: pair.right)
        // Generous: under a full parallel test run the main queue can be busy for seconds.
        let deadline = ContinuousClock.now + .seconds(60)
        while received.isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(received == [[4, 2]])
        #expect(watch.isActive)
        watch.cancel()
        watch.cancel()
        #expect(!watch.isActive)
        // Closed now; the peer sees the end once no process of this run still holds a copy: a
        // child being spawned by a test beside this one holds every descriptor for the moment
        // between its fork and its exec (close-on-exec ends it only at the exec).
        let closed = ContinuousClock.now + .seconds(30)
        while !peerSeesEndOfFile(pair.right) && ContinuousClock.now < closed {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(peerSeesEndOfFile(pair.right))
    }

    /// A watch cancelled while its descriptor is readable is never called again.
    @Test func aCancelledWatchIsNeverCalledAgain() async throws {
        let pair = try SocketPair()
        var calls = 0
        let watch = DescriptorWatch(descriptor: pair.left, closesDescriptor: false) { calls += 1 }
        pair.send([1], from: pair.right)
        watch.cancel()
        // A watch of another descriptor, made after, is heard: the loop has turned since.
        let other = try SocketPair()
        var heard = false
        let next = DescriptorWatch(descriptor: other.left, closesDescriptor: false) { heard = true }
        other.send([2], from: other.right)
        let deadline = ContinuousClock.now + .seconds(60)
        while !heard && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        next.cancel()
        #expect(heard)
        #expect(calls == 0)
    }

    /// A watch whose descriptor its owner closed without cancelling it first, and whose
    /// number went to a new descriptor watched since, leaves the new watch alone when it is
    /// cancelled at last.
    @Test func aLateCancelLeavesTheNextOwnerOfTheNumberAlone() async throws {
        let first = try SocketPair()
        let stale = DescriptorWatch(descriptor: first.left, closesDescriptor: false) {}
        let number = first.left
        first.close(first.right)
        let second = try SocketPair()
        // The number goes to the new socket in one step (`dup2` closes the old file and
        // reuses its number): after a plain close, another test running in parallel could
        // take the lowest free number first, as one did in a CI run. `first` closes the
        // number at the end, now the new socket's.
        #expect(dup2(second.left, number) == number)
        second.close(second.left)
        let reused = number
        let peer = second.right
        var heard: [UInt8] = []
        let next = DescriptorWatch(descriptor: reused, closesDescriptor: false) { heard += second.receive(reused) }
        stale.cancel()
        second.send([3], from: peer)
        let deadline = ContinuousClock.now + .seconds(60)
        while heard.isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        next.cancel()
        #expect(heard == [3])
    }

    @Test func aWatchThatDoesNotOwnItsDescriptorLeavesItOpen() async throws {
        let pair = try SocketPair()
        let watch = DescriptorWatch(descriptor: pair.left, closesDescriptor: false) {}
        watch.cancel()
        try await Task.sleep(for: .milliseconds(50))
        #expect(!peerSeesEndOfFile(pair.right))
    }

    /// The defect behind the D-Bus `NoReply` flake (#28): an owner that closes its descriptor
    /// right after ``DescriptorWatch/cancel()`` (the serial port, libmicrohttpd's) closed it
    /// before libdispatch had unregistered the cancelled source; the next descriptor given the
    /// same number (a D-Bus connection's, in another test) joined that stale registration and
    /// its source never fired. Watches are epoll registrations of ``MainLoop`` now, removed
    /// before ``DescriptorWatch/cancel()`` returns.
    @Test func aDescriptorClosedRightAfterItsWatchIsCancelledDoesNotDeafenTheNextOne() async throws {
        for round in 0..<300 {
            // Registered and served once, as a serial port's or an HTTP server's watch is.
            let (first, watch, _) = try await pipeWatchedUntilHeard(closesDescriptor: false)
            // Readable again when it is cancelled (an event may be on its way), then closed.
            var ping: UInt8 = 1
            #expect(write(first[1], &ping, 1) == 1)
            watch.cancel()
            close(first[0])
            close(first[1])
            // The next pipe takes the same numbers.
            let (second, next, heard) = try await pipeWatchedUntilHeard(closesDescriptor: true)
            next.cancel()
            close(second[1])
            #expect(heard, "round \(round): the watch of descriptor \(second[0]) never fired")
            if !heard { break }
        }
    }

    /// A new pipe whose read end is watched; a byte is written to it and awaited (10 s at
    /// most). Returns the pipe, the watch and whether the watch heard the byte.
    private func pipeWatchedUntilHeard(closesDescriptor: Bool) async throws -> ([Int32], DescriptorWatch, Bool) {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let reader = ends[0]
        var heard = false
        let watch = DescriptorWatch(descriptor: reader, closesDescriptor: closesDescriptor) {
            var byte: UInt8 = 0
            if read(reader, &byte, 1) == 1 { heard = true }
        }
        var byte: UInt8 = 1
        #expect(write(ends[1], &byte, 1) == 1)
        let deadline = ContinuousClock.now + .seconds(10)
        while !heard && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        return (ends, watch, heard)
    }

    /// Whether the other end of `descriptor`'s pair is closed (a read gives end of file).
    private func peerSeesEndOfFile(_ descriptor: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT) | Int32(MSG_PEEK)) == 0
    }
}

@MainActor
@Suite struct WritableDescriptorWatchTests {
    /// A full socket is not writable; once the peer reads, the watch is called.
    @Test func callsItsHandlerOnceTheSocketTakesBytesAgain() async throws {
        let pair = try SocketPair()
        _ = fcntl(pair.left, F_SETFL, fcntl(pair.left, F_GETFL) | O_NONBLOCK)
        var filled = 0
        let chunk = [UInt8](repeating: 7, count: 1024)
        while chunk.withUnsafeBytes({ Foundation.send(pair.left, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 {
            filled += 1
        }
        #expect(filled > 0)
        var calls = 0
        let watch = DescriptorWatch(descriptor: pair.left, for: .writable, closesDescriptor: false) { calls += 1 }
        // Still full: a turn of the loop (a timer) passes without a call.
        var turned = false
        MainLoop.after(0.02) { turned = true }
        let deadline = ContinuousClock.now + .seconds(60)
        while !turned && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        #expect(calls == 0)
        while !pair.receive(pair.right).isEmpty {}
        while calls == 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        #expect(calls > 0)
        watch.cancel()
        let afterCancel = calls
        turned = false
        MainLoop.after(0.02) { turned = true }
        while !turned && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        #expect(calls == afterCancel)
        #expect(!watch.isActive)
    }
}

import Foundation
import Testing

@testable import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct RetryPolicyTests {
    /// `EINTR` is retried until the call gives an answer.
    @Test func interruptedCallsAreRetried() throws {
        var calls = 0
        let result = try SystemCall.retryingInterrupts { () -> Int in
            calls += 1
            if calls < 3 {
                errno = EINTR
                return -1
            }
            return 5
        }
        #expect(result == 5 && calls == 3)
    }

    /// Every other failure, `EAGAIN` included, is thrown at once as its `Errno`.
    @Test(arguments: [EIO, EAGAIN, ENOENT])
    func otherFailuresAreThrown(code: Int32) {
        var calls = 0
        #expect(throws: Errno(rawValue: code)) {
            try SystemCall.retryingInterrupts { () -> Int32 in
                calls += 1
                errno = code
                return -1
            }
        }
        #expect(calls == 1)
    }

    @Test func errnoDescribesItself() {
        #expect(Errno.noSuchFileOrDirectory.description == "No such file or directory")
        #expect(Errno.wouldBlock == Errno(rawValue: EWOULDBLOCK))
    }
}

@Suite struct WriteAllTests {
    /// A non-blocking pipe takes 64 KB at most: a 1 MB write is many partial writes and
    /// `EAGAIN`s, and every byte arrives once, in order.
    @Test func partialWritesAndFullPipesContinue() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        let reader = FileDescriptor(rawValue: ends[0])
        let writer = FileDescriptor(rawValue: ends[1])
        #expect(fcntl(writer.rawValue, F_SETFL, fcntl(writer.rawValue, F_GETFL) | O_NONBLOCK) == 0)
        let payload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        let received = ReceivedBytes()
        let thread = Thread {
            received.bytes = (try? reader.readAll(chunk: 4096)) ?? []
        }
        thread.start()
        #expect(try writer.writeAll(payload) == payload.count)
        writer.close()
        while !received.isDone { usleep(1000) }
        #expect(received.bytes == payload)
        reader.close()
    }

    @Test func writingToAClosedPipeThrows() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        signal(SIGPIPE, SIG_IGN)
        FileDescriptor(rawValue: ends[0]).close()
        let writer = FileDescriptor(rawValue: ends[1])
        defer { writer.close() }
        #expect(throws: Errno(rawValue: EPIPE)) { try writer.writeAll([1, 2, 3]) }
    }
}

/// Bytes a reader thread hands back.
private final class ReceivedBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [UInt8]?
    var bytes: [UInt8] {
        get { lock.withLock { stored ?? [] } }
        set { lock.withLock { stored = newValue } }
    }
    var isDone: Bool { lock.withLock { stored != nil } }
}

@Suite struct AtomicReplaceTests {
    private func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("systemcalls-\(UUID())").path
        try FileSystem.createDirectory(path, permissions: 0o750)
        return path
    }

    @Test func replacesTheContentAndLeavesNoTemporaryFile() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/state.json"
        try FileSystem.replaceAtomically(path, with: Array("old".utf8), temporaryPath: path + ".tmp")
        try FileSystem.replaceAtomically(path, with: Array("new".utf8), temporaryPath: path + ".tmp", durably: false)
        #expect(try FileSystem.contents(of: path) == Array("new".utf8))
        #expect(!FileSystem.exists(path + ".tmp"))
        #expect(try FileSystem.contents(of: folder + "/missing") == nil)
    }

    /// A failure before the rename leaves the old file as it was.
    @Test func aFailedOpenKeepsTheOldContent() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/state.json"
        try FileSystem.replaceAtomically(path, with: Array("old".utf8), temporaryPath: path + ".tmp")
        #expect(
            throws: FileSystemError(operation: "open", path: folder + "/no/state.tmp", errno: .noSuchFileOrDirectory)
        ) {
            try FileSystem.replaceAtomically(path, with: Array("new".utf8), temporaryPath: folder + "/no/state.tmp")
        }
        #expect(try FileSystem.contents(of: path) == Array("old".utf8))
    }

    /// A failed rename (the target is a directory that is not empty) removes the temporary file.
    @Test func aFailedRenameRemovesTheTemporaryFile() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/taken"
        try FileSystem.createDirectory(path, permissions: 0o750)
        try FileSystem.replaceAtomically(path + "/inside", with: [1], temporaryPath: path + "/inside.tmp")
        let thrown = #expect(throws: FileSystemError.self) {
            try FileSystem.replaceAtomically(path, with: Array("new".utf8), temporaryPath: path + ".tmp")
        }
        #expect(thrown?.operation == "rename" && thrown?.path == path)
        #expect(!FileSystem.exists(path + ".tmp"))
        #expect(try FileSystem.contents(of: path + "/inside") == [1])
    }

    @Test func directoryOfAPath() {
        #expect(FileSystem.directory(of: "/var/lib/x.json") == "/var/lib")
        #expect(FileSystem.directory(of: "/x.json") == "/")
        #expect(FileSystem.directory(of: "x.json") == ".")
    }
}

@Suite struct UnixDatagramTests {
    /// Binds a datagram socket at `path` (abstract when it starts with `@`).
    private func bound(_ path: String) throws -> FileDescriptor {
        let socket = FileDescriptor(rawValue: Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket.rawValue, $0, length) }
        }
        #expect(result == 0)
        return socket
    }

    private func receive(_ socket: FileDescriptor) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = try buffer.withUnsafeMutableBytes { raw in
            Result { () throws(Errno) -> Int in try socket.receive(into: raw) }
        }.get()
        return Array(buffer[0..<count])
    }

    @Test func sendsOneDatagramToAPath() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "notify-\(UUID().uuidString.prefix(8))"
        )
        .path
        let socket = try bound(path)
        defer {
            socket.close()
            try? FileSystem.remove(path)
        }
        #expect(try UnixDatagram.send(Array("READY=1".utf8), to: path) == 7)
        #expect(try receive(socket) == Array("READY=1".utf8))
        #expect(throws: Errno.wouldBlock) { try receive(socket) }
    }

    @Test func sendsToAnAbstractSocket() throws {
        let name = "@boardbridge-test-\(UUID().uuidString.prefix(8))"
        let socket = try bound(name)
        defer { socket.close() }
        try UnixDatagram.send(Array("WATCHDOG=1".utf8), to: name)
        #expect(try receive(socket) == Array("WATCHDOG=1".utf8))
    }

    @Test func refusesPathsTooLongAndMissingSockets() {
        #expect(throws: Errno.fileNameTooLong) {
            try UnixDatagram.send([1], to: "/" + String(repeating: "x", count: 200))
        }
        #expect(throws: Errno.noSuchFileOrDirectory) { try UnixDatagram.send([1], to: "/nonexistent/notify.sock") }
    }

    @Test func socketPairsCarryDatagrams() throws {
        let (left, right) = try FileDescriptor.socketPair(type: Int32(SOCK_DGRAM.rawValue))
        defer {
            left.close()
            right.close()
        }
        try left.writeAll([9, 8, 7])
        #expect(try receive(right) == [9, 8, 7])
    }
}

@Suite struct HostTests {
    @Test func hostNameMatchesTheSystem() throws {
        var names = utsname()
        #expect(uname(&names) == 0)
        let node = withUnsafeBytes(of: &names.nodename) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        #expect(try Host.name() == node)
    }
}

@Suite struct SocketSendTests {
    /// `send` never blocks: a full stream socket throws `wouldBlock`; once the peer is gone
    /// it throws `brokenPipe` (no `SIGPIPE` ends the test runner); `receive` on an empty
    /// socket throws `wouldBlock`.
    @Test func fullAndClosedSocketsThrowTheirErrno() throws {
        let (left, right) = try FileDescriptor.socketPair(type: Int32(SOCK_STREAM.rawValue))
        defer { left.close() }
        var empty = [UInt8](repeating: 0, count: 16)
        #expect(throws: Errno.wouldBlock) {
            try empty.withUnsafeMutableBytes { raw in _ = try right.receive(into: raw) }
        }
        let chunk = [UInt8](repeating: 0x55, count: 65_536)
        var total = 0
        var full: Errno?
        while full == nil && total < 64 << 20 {
            let sent = chunk.withUnsafeBytes { raw in Result { () throws(Errno) -> Int in try left.send(raw) } }
            switch sent {
            case .success(let count): total += count
            case .failure(let error): full = error
            }
        }
        #expect(full == .wouldBlock && total > 0)
        right.close()
        #expect(throws: Errno.brokenPipe) { try chunk.withUnsafeBytes { raw in _ = try left.send(raw) } }
    }

    /// A close reports its failure (a number that is no descriptor: `EBADF`; never a second
    /// close of a real one, which another test's new descriptor may have taken meanwhile).
    @Test func closeReportsItsError() throws {
        let (left, right) = try FileDescriptor.socketPair(type: Int32(SOCK_DGRAM.rawValue))
        right.close()
        try left.closeReportingErrors()
        #expect(throws: Errno(rawValue: EBADF)) { try FileDescriptor(rawValue: -1).closeReportingErrors() }
    }
}

@Suite struct MachineFiguresTests {
    @Test func figuresMatchTheSystem() throws {
        #expect(Host.pageSize == Int(getpagesize()))
        #expect(Host.clockTicksPerSecond == sysconf(Int32(_SC_CLK_TCK)))
        var info = statvfs()
        #expect(statvfs("/", &info) == 0)
        #expect(try FileSystem.freeBytes("/") >= 0)
        #expect(throws: Errno.noSuchFileOrDirectory) { try FileSystem.freeBytes("/nonexistent/dir") }
    }
}

/// Issue #31 (6): what the MQTT socket and the serial line need of a descriptor, through
/// this module: a peek that takes nothing, a duplicate for a watch, close-on-exec.
@Suite struct DescriptorHandlingTests {
    @Test func peekSeesInputAndEndOfFileWithoutTakingAnything() throws {
        let (near, far) = try FileDescriptor.socketPair(type: Int32(SOCK_STREAM.rawValue))
        defer { near.close() }
        #expect(throws: Errno.wouldBlock) { try near.peek() }
        _ = try [UInt8(7)].withUnsafeBytes { try far.send($0) }
        #expect(try near.peek() == 1)
        #expect(try near.peek() == 1)
        var byte: [UInt8] = [0]
        #expect(try byte.withUnsafeMutableBytes { try near.receive(into: $0) } == 1 && byte == [7])
        far.close()
        #expect(try near.peek() == 0)
    }

    @Test func aDuplicateIsCloseOnExecAndOutlivesTheOriginal() throws {
        var pipeEnds: [Int32] = [-1, -1]
        #expect(pipe(&pipeEnds) == 0)
        let (reading, writing) = (FileDescriptor(rawValue: pipeEnds[0]), FileDescriptor(rawValue: pipeEnds[1]))
        defer { writing.close() }
        #expect(fcntl(reading.rawValue, F_GETFD) & FD_CLOEXEC == 0)
        try reading.setCloseOnExec()
        #expect(fcntl(reading.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        let duplicate = try reading.duplicate()
        defer { duplicate.close() }
        #expect(duplicate != reading && fcntl(duplicate.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        reading.close()
        _ = try [UInt8(1)].withUnsafeBytes { try writing.write($0) }
        var byte: [UInt8] = [0]
        #expect(try byte.withUnsafeMutableBytes { try duplicate.read(into: $0) } == 1)
    }
}

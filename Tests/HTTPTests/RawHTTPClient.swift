import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking loopback TCP client that sends exactly the bytes given, so tests can send
/// what no HTTP library would (malformed, huge, trickled requests).
final class RawHTTPClient: @unchecked Sendable {
    let descriptor: Int32

    /// A connection to `port` on 127.0.0.1, from `source` (another loopback address such as
    /// `127.0.0.2`, to be another client) when given.
    init(port: UInt16, receiveTimeout seconds: Int = 20, source: String? = nil) throws {
        let fd = LoopbackSocket.tcp()
        if let source, !LoopbackSocket.bind(fd, host: source) {
            close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        guard LoopbackSocket.connect(fd, port: port) else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Sends all of `text`; false when the peer has closed.
    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    /// Reads until the peer closes (or the receive timeout); returns what came.
    func readAll() -> String {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = recv(descriptor, &buffer, buffer.count, 0)
            if n <= 0 { break }
            data.append(contentsOf: buffer[..<n])
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads until `marker` has arrived (or the peer closes / times out).
    func read(until marker: String) -> String {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: data, as: UTF8.self).contains(marker) {
            let n = recv(descriptor, &buffer, buffer.count, 0)
            if n <= 0 { break }
            data.append(contentsOf: buffer[..<n])
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Whether the server has closed the connection (a read returns end of file).
    func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        while true {
            let n = recv(descriptor, &byte, 1, 0)
            if n == 0 { return true }
            if n < 0 { return errno == ECONNRESET }
        }
    }

    /// One request, the whole answer.
    static func exchange(
        port: UInt16, _ request: String, source: String? = nil, receiveTimeout: Int = 20
    ) async throws -> String {
        try await onOwnThread { () throws -> String in
            let client = try RawHTTPClient(port: port, receiveTimeout: receiveTimeout, source: source)
            client.send(request)
            return client.readAll()
        }
    }
}

/// The status code of a raw HTTP answer (`HTTP/1.1 404 Not Found` → 404), or nil.
func statusCode(_ answer: String) -> Int? {
    let parts = answer.split(separator: " ", maxSplits: 2)
    guard parts.count >= 2, parts[0].hasPrefix("HTTP/") else { return nil }
    return Int(parts[1])
}

/// A flag a client thread sets and a test polls.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)

    func set() { value.store(true, ordering: .releasing) }

    var isSet: Bool { value.load(ordering: .acquiring) }
}

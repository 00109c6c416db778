internal import CMicroHTTPD

/// One open Server-Sent Events response: what is sent is written to the client as soon as
/// its socket takes it; while nothing is pending the connection is suspended, so an idle
/// stream costs no polling.
///
/// Bounded: when more than ``pendingLimit`` bytes wait for a slow client, the stream is
/// closed (the client reconnects and resynchronises), so one stuck browser cannot grow the
/// server's memory.
@MainActor
public final class HTTPEventStream {
    /// Bytes that may wait for the client before the stream is closed.
    public let pendingLimit: Int
    /// Called once when the stream ends (client gone, ``close()``, or over the limit).
    public var onClose: (() -> Void)?
    /// Bytes handed to the socket so far.
    public private(set) var bytesWritten = 0
    /// Whether the stream has ended.
    public private(set) var isClosed = false

    private var pending: [UInt8] = []
    private var offset = 0
    private var suspended = false
    var connection: OpaquePointer?
    weak var server: HTTPServer?

    /// A stream that may hold up to `pendingLimit` unsent bytes.
    public init(pendingLimit: Int = 1 << 20) {
        self.pendingLimit = pendingLimit
    }

    /// Bytes waiting for the client.
    public var pendingCount: Int { pending.count - offset }

    /// Queues one event: `event:` (when given), `id:` (when given) and the data lines.
    public func send(event: String? = nil, id: String? = nil, data: String) {
        write(Self.encode(event: event, id: id, data: data))
    }

    /// One event in the stream's wire form, for a caller that sends the same event to many
    /// streams (encode once, ``write(_:)`` to each).
    public static func encode(event: String? = nil, id: String? = nil, data: String) -> [UInt8] {
        var text = ""
        if let event { text += "event: \(singleLine(event))\n" }
        if let id { text += "id: \(singleLine(id))\n" }
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) {
            text += "data: \(line)\n"
        }
        text += "\n"
        return Array(text.utf8)
    }

    /// Queues a comment line (`: text`), e.g. a heartbeat that keeps proxies from closing.
    public func sendComment(_ text: String) {
        write(Array(": \(Self.singleLine(text))\n\n".utf8))
    }

    /// Queues raw bytes.
    public func write(_ bytes: [UInt8]) {
        guard !isClosed else { return }
        if offset > 0, offset >= pending.count / 2 {
            pending.removeFirst(offset)
            offset = 0
        }
        pending.append(contentsOf: bytes)
        if pendingCount > pendingLimit {
            close()
            return
        }
        wake()
    }

    /// Ends the stream; the server finishes the response and closes the connection.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        pending = []
        offset = 0
        wake()
        finish()
    }

    private func wake() {
        guard suspended, let connection else { return }
        suspended = false
        MHD_resume_connection(connection)
        server?.scheduleRun()
    }

    /// Called when MHD frees the response (the connection is gone).
    func finish() {
        isClosed = true
        connection = nil
        let callback = onClose
        onClose = nil
        callback?()
    }

    /// MHD's content reader: copies pending bytes, or suspends the connection when none.
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        if isClosed { return -1 }  // MHD_CONTENT_READER_END_OF_STREAM
        let count = min(capacity, pendingCount)
        guard count > 0 else {
            if let connection {
                suspended = true
                MHD_suspend_connection(connection)
            }
            return 0
        }
        pending.withUnsafeBufferPointer { source in
            UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + offset, byteCount: count)
        }
        offset += count
        bytesWritten += count
        if offset == pending.count {
            pending.removeAll(keepingCapacity: pending.count <= 64 * 1024)
            offset = 0
        }
        return count
    }

    private static func singleLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}

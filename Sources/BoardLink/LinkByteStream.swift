import SystemCalls

/// What one read of a ``LinkByteStream`` found.
public enum LinkRead: Equatable, Sendable {
    /// This many bytes, at the start of the buffer.
    case bytes(Int)
    /// Nothing waits (a non-blocking read would block).
    case nothingWaiting
    /// The stream ended (end of file, an error): the reason, readable.
    case ended(String)
}

/// What one write to a ``LinkByteStream`` did.
public enum LinkWrite: Equatable, Sendable {
    /// This many bytes of the buffer were taken (possibly fewer than offered).
    case wrote(Int)
    /// The stream takes nothing now (full): try again later.
    case full
    /// The stream ended: the reason, readable.
    case ended(String)
}

/// The byte stream under a ``StreamLink``: a Bluetooth Classic RFCOMM socket
/// (``SocketByteStream``), a serial line. Non-blocking; the link's loop watches ``descriptor``.
@MainActor
public protocol LinkByteStream: AnyObject {
    /// The descriptor whose readability the link watches (the stream keeps it open until
    /// ``close()``).
    var descriptor: Int32 { get }
    /// Reads what waits into `buffer` without blocking.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> LinkRead
    /// Writes what the stream takes of `buffer` now, without blocking.
    func write(_ buffer: UnsafeRawBufferPointer) -> LinkWrite
    /// Closes the stream (idempotent).
    func close()
}

/// A connected stream socket as a ``LinkByteStream``: `recv`/`send` without blocking and
/// without `SIGPIPE`, made non-blocking and close-on-exec when taken over. The descriptor is
/// owned: closed once, by ``close()``.
@MainActor
public final class SocketByteStream: LinkByteStream {
    /// The socket.
    public let descriptor: Int32
    /// What an end of file means, for the reason reported ("the board closed the RFCOMM link").
    private let endOfFile: String
    private var isOpen = true

    /// Takes over `descriptor`; `endOfFile` is the reason reported when the peer closes.
    public init(descriptor: Int32, endOfFile: String) {
        self.descriptor = descriptor
        self.endOfFile = endOfFile
        try? FileDescriptor(rawValue: descriptor).makeNonBlockingAndCloseOnExec()
    }

    /// One `recv`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> LinkRead {
        do throws(Errno) {
            let count = try FileDescriptor(rawValue: descriptor).receive(into: buffer)
            return count > 0 ? .bytes(count) : .ended(endOfFile)
        } catch .wouldBlock {
            return .nothingWaiting
        } catch {
            return .ended("read failed (errno \(error.rawValue))")
        }
    }

    /// One `send`.
    public func write(_ buffer: UnsafeRawBufferPointer) -> LinkWrite {
        do throws(Errno) {
            let sent = try FileDescriptor(rawValue: descriptor).send(buffer)
            return sent > 0 || buffer.isEmpty ? .wrote(sent) : .ended("write failed (errno 0)")
        } catch .wouldBlock {
            return .full
        } catch {
            return .ended("write failed (errno \(error.rawValue))")
        }
    }

    /// Closes the socket once.
    public func close() {
        guard isOpen else { return }
        isOpen = false
        FileDescriptor(rawValue: descriptor).close()
    }

    isolated deinit {
        close()
    }
}

import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Calls a handler on the main actor whenever a descriptor is readable (or hung up).
///
/// Served by ``MainLoop`` when it is active (one thread wake-up per event), else by a
/// Dispatch read source on the main queue. Level-triggered either way: the handler is called
/// again while data is waiting, so it may read one message per call.
@MainActor
public final class ReadableWatch {
    private enum Backend {
        case loop
        case dispatch(any DispatchSourceRead)
    }

    /// The watched descriptor.
    public let descriptor: Int32
    private let closesDescriptor: Bool
    private var backend: Backend?

    /// Starts watching `descriptor`. With `closesDescriptor`, ``cancel()`` (or the release
    /// of the watch) closes it once nothing watches it any more.
    public init(descriptor: Int32, closesDescriptor: Bool, handler: @escaping @MainActor () -> Void) {
        self.descriptor = descriptor
        self.closesDescriptor = closesDescriptor
        if MainLoop.isActive, MainLoop.add(descriptor, handler: handler) {
            backend = .loop
        } else {
            // The source watches a duplicate that only its cancel handler closes. libdispatch
            // unregisters a cancelled source later, on its queue; an owner that closed the
            // descriptor before that (the serial port, libmicrohttpd) left a stale registration
            // under its number, and the next descriptor given that number (a D-Bus
            // connection's) joined it and was never heard (#28). Without a descriptor to spare
            // (EMFILE), the descriptor itself is watched.
            let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
            let watched = duplicate >= 0 ? duplicate : descriptor
            let source = DispatchSource.makeReadSource(fileDescriptor: watched, queue: .main)
            source.setEventHandler {
                MainActor.assumeIsolated { handler() }
            }
            source.setCancelHandler {
                if duplicate >= 0 { Self.close(duplicate) }
                if closesDescriptor { Self.close(descriptor) }
            }
            source.resume()
            backend = .dispatch(source)
        }
    }

    /// Whether the descriptor is still watched.
    public var isActive: Bool { backend != nil }

    /// Stops watching (and closes the descriptor if the watch owns it). Idempotent.
    public func cancel() {
        switch backend {
        case .loop:
            MainLoop.remove(descriptor)
            if closesDescriptor { Self.close(descriptor) }
        case .dispatch(let source):
            source.cancel()
        case nil:
            break
        }
        backend = nil
    }

    isolated deinit {
        cancel()
    }

    private nonisolated static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(descriptor)
        #elseif canImport(Musl)
            _ = Musl.close(descriptor)
        #endif
    }
}

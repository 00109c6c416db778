/// Calls a handler on the main actor whenever a descriptor is readable (or hung up).
///
/// Served by ``MainLoop`` (whether it owns the main thread or is hosted on the main queue).
/// Level-triggered: the handler is called again while data is waiting, so it may read one
/// message per call. Registration and removal are synchronous: once ``cancel()`` returns, the
/// handler is never called again and (with `closesDescriptor`) the descriptor is closed.
@MainActor
public final class ReadableWatch {
    private var registration: LoopRegistration

    /// Starts watching `descriptor`. With `closesDescriptor`, ``cancel()`` (or the release
    /// of the watch) closes it. A descriptor the kernel cannot watch (a regular file, a
    /// closed number) leaves the watch inactive from the start (and still closed by
    /// ``cancel()`` when owned).
    public init(descriptor: Int32, closesDescriptor: Bool, handler: @escaping @MainActor () -> Void) {
        registration = LoopRegistration(
            descriptor: descriptor, writable: false, closesDescriptor: closesDescriptor, handler: handler)
    }

    /// The watched descriptor.
    public var descriptor: Int32 { registration.descriptor }

    /// Whether the descriptor is still watched.
    public var isActive: Bool { registration.isActive }

    /// Stops watching (and closes the descriptor if the watch owns it). Idempotent.
    public func cancel() {
        registration.cancel()
    }

    isolated deinit {
        cancel()
    }
}

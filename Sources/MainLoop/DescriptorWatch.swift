#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Calls a handler on the main actor whenever a descriptor is readable, or writable (or
/// hung up), served by ``MainLoop`` (whether it owns the main thread or is hosted on the
/// main queue).
///
/// Level-triggered: the handler is called again while data is waiting (so it may read one
/// message per call), or while the descriptor stays writable (so cancel a write watch once
/// nothing is left to write). A descriptor must not be watched for reading and writing under
/// the same number: watch a duplicate. Registration and removal are synchronous: once
/// ``cancel()`` returns, the handler is never called again and (with `closesDescriptor`) the
/// descriptor is closed; a late cancel removes only its own registration, never that of a
/// new owner of the number.
@MainActor
public final class DescriptorWatch {
    /// What the handler waits for.
    public enum Readiness: Sendable {
        /// Data to read (or a hang-up).
        case readable
        /// Room to write (or a hang-up).
        case writable
    }

    /// The watched descriptor.
    public let descriptor: Int32
    /// Whether ``cancel()`` still has to close the descriptor.
    private var owesClose: Bool
    /// The loop's registration, while there is one.
    private var generation: UInt32?

    /// Starts watching `descriptor` for `readiness`. With `closesDescriptor`, ``cancel()``
    /// (or the release of the watch) closes it. A descriptor the kernel cannot watch (a
    /// regular file, a closed number) leaves the watch inactive from the start (and still
    /// closed by ``cancel()`` when owned).
    public init(
        descriptor: Int32, for readiness: Readiness = .readable, closesDescriptor: Bool,
        handler: @escaping @MainActor () -> Void
    ) {
        self.descriptor = descriptor
        owesClose = closesDescriptor
        generation = MainLoop.add(descriptor, writable: readiness == .writable, handler: handler)
    }

    /// Whether the descriptor is still watched.
    public var isActive: Bool { generation != nil }

    /// Stops watching (and closes the descriptor if the watch owns it). Idempotent.
    public func cancel() {
        if let generation { MainLoop.remove(descriptor, generation: generation) }
        generation = nil
        if owesClose { _ = close(descriptor) }
        owesClose = false
    }

    isolated deinit {
        cancel()
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Calls a handler on the main actor whenever a descriptor can be written to (or is hung
/// up), served by ``MainLoop`` like a ``ReadableWatch``. Level-triggered: it keeps calling
/// while the descriptor is writable, so cancel it once nothing is left to write. A
/// descriptor must not be watched for reading and writing under the same number: watch a
/// duplicate.
@MainActor
public final class WritableWatch {
    /// The watched descriptor.
    public let descriptor: Int32
    private var owesClose: Bool
    private var generation: UInt32?

    /// Starts watching `descriptor`. With `closesDescriptor`, ``cancel()`` (or the release
    /// of the watch) closes it.
    public init(descriptor: Int32, closesDescriptor: Bool, handler: @escaping @MainActor () -> Void) {
        self.descriptor = descriptor
        owesClose = closesDescriptor
        generation = MainLoop.add(descriptor, writable: true, handler: handler)
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

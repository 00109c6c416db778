#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One descriptor's registration with ``MainLoop``, and whether its owner closes it: what a
/// ``ReadableWatch`` and a ``WritableWatch`` both are, for reading or for writing.
@MainActor
struct LoopRegistration {
    let descriptor: Int32
    /// Whether ``cancel()`` still has to close the descriptor.
    private var owesClose: Bool
    /// The loop's registration, while there is one.
    private var generation: UInt32?

    /// Registers `descriptor` for reading, or with `writable` for writing. A descriptor the
    /// kernel cannot watch (a regular file, a closed number) leaves the registration inactive
    /// from the start (and still closed by ``cancel()`` when owned).
    init(descriptor: Int32, writable: Bool, closesDescriptor: Bool, handler: @escaping @MainActor () -> Void) {
        self.descriptor = descriptor
        owesClose = closesDescriptor
        generation = MainLoop.add(descriptor, writable: writable, handler: handler)
    }

    var isActive: Bool { generation != nil }

    /// Removes the registration (only its own: a late cancel leaves a new owner of the number
    /// alone) and closes the descriptor if owned. Idempotent.
    mutating func cancel() {
        if let generation { MainLoop.remove(descriptor, generation: generation) }
        generation = nil
        if owesClose { _ = close(descriptor) }
        owesClose = false
    }
}

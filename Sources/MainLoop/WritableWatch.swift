/// Calls a handler on the main actor whenever a descriptor can be written to (or is hung
/// up), served by ``MainLoop`` like a ``ReadableWatch``. Level-triggered: it keeps calling
/// while the descriptor is writable, so cancel it once nothing is left to write. A
/// descriptor must not be watched for reading and writing under the same number: watch a
/// duplicate.
@MainActor
public final class WritableWatch {
    private var registration: LoopRegistration

    /// Starts watching `descriptor`. With `closesDescriptor`, ``cancel()`` (or the release
    /// of the watch) closes it.
    public init(descriptor: Int32, closesDescriptor: Bool, handler: @escaping @MainActor () -> Void) {
        registration = LoopRegistration(
            descriptor: descriptor, writable: true, closesDescriptor: closesDescriptor, handler: handler)
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

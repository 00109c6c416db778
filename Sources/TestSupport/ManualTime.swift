import Foundation

/// A clock in seconds since 1970 that moves only when told (`advance`): the time a board
/// session is handed in tests and in the benchmark's in-process session.
public final class ManualTime: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Double

    /// A clock at `start` (a fixed instant by default, so that runs repeat).
    public init(start: Double = 1_800_000_000) { value = start }

    /// The time now.
    public var now: Double { lock.withLock { value } }

    /// Moves the clock on by `seconds`.
    public func advance(_ seconds: Double) { lock.withLock { value += seconds } }
}

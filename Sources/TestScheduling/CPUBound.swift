public import Testing

/// A trait for tests that compute for long without suspending (property tests, fuzz
/// targets): each of its test cases runs on a ``ThreadExecutor`` of its own, off Swift's
/// cooperative pool, and one at a time (``TestGate``), so that the tests running beside
/// them in parallel keep their timing.
///
/// Only the test's nonisolated code moves; a `@MainActor` test still runs on the main actor
/// (and must suspend now and then itself).
///
/// ```swift
/// @Suite(.cpuBound) struct GapPropertyTests { … }
/// ```
public struct CPUBound: TestCaseScoped {
    /// The gate every CPU-bound test case passes, one at a time.
    static let gate = TestGate(width: 1)

    /// Runs `function` on a thread of its own once no other CPU-bound test case runs, ending
    /// the thread afterwards.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await Self.gate.pass {
            let executor = ThreadExecutor(name: "cpu-bound: \(test.name)")
            defer { executor.shutDown() }
            try await withTaskExecutorPreference(executor) { try await function() }
        }
    }
}

extension Trait where Self == CPUBound {
    /// Runs each test case on a thread of its own (``CPUBound``).
    public static var cpuBound: Self { CPUBound() }
}

import Foundation
public import Testing

/// A trait for tests that start a whole hall of processes (a private bus, `boardsim`, a
/// broker, the bridge) and wait on them: at most ``width`` of their test cases run at once
/// (``TestGate``), in parallel with each other and with the rest of the run.
///
/// A hall mostly waits — on its processes, their sockets and the conditions a test checks
/// (a third of one core over a whole end-to-end suite) — so running the halls one at a time
/// leaves the machine idle; a score at once would take the cores from each other's bridges.
///
/// ```swift
/// @Suite(.wholeHall) @MainActor struct EndToEndTests { … }
/// ```
public struct WholeHall: TestCaseScoped {
    /// How many halls run at once: `BOARDBRIDGE_TEST_HALLS` if set to a positive count,
    /// else three (measured on two cores: the end-to-end suite's wall time falls from 230 s
    /// one at a time to about a third, with no test's timing at risk).
    public static let width: Int = {
        let set = ProcessInfo.processInfo.environment["BOARDBRIDGE_TEST_HALLS"].flatMap { Int($0) }
        return set.map { max($0, 1) } ?? 3
    }()

    static let gate = TestGate(width: width)

    /// Runs `function` once fewer than ``width`` other hall test cases run.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await Self.gate.pass(function)
    }
}

extension Trait where Self == WholeHall {
    /// Runs at most ``WholeHall/width`` hall test cases at once (``WholeHall``).
    public static var wholeHall: Self { WholeHall() }
}

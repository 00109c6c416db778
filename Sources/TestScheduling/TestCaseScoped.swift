public import Testing

/// A trait whose scope is each test case of the tests and suites it is given to (not a
/// suite, nor a parameterized test as a whole): what a gate counts is a running case.
public protocol TestCaseScoped: TestTrait, SuiteTrait, TestScoping {}

extension TestCaseScoped {
    /// Applies to every test of a suite it is given to.
    public var isRecursive: Bool { true }

    /// A scope for each test case.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }
}

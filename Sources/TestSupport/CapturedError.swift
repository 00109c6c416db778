public import DBus

/// Runs `body` and returns the `DBusError` it throws, or `nil` when it succeeds.
///
/// Any other error comes back as a `DBusError` named ``unexpectedErrorName`` whose message
/// describes it, so that every assertion on the result (a name, an equality, or `nil`)
/// fails and shows what was thrown instead.
@MainActor
public func capturedError(_ body: @MainActor () async throws -> Void) async -> DBusError? {
    do {
        try await body()
        return nil
    } catch let error as DBusError {
        return error
    } catch {
        return DBusError(name: unexpectedErrorName, message: "not a D-Bus error: \(error)")
    }
}

/// The name ``capturedError(_:)`` gives an error that is not a `DBusError`.
public let unexpectedErrorName = "org.boardbridge.Test.UnexpectedError"

import Foundation

/// Runs blocking `work` — a socket read with a timeout, a `sleep` between trickled bytes —
/// on a thread of its own and returns its result.
///
/// The calling task suspends meanwhile. Run on a task of its own instead (`Task.detached`),
/// the work would hold one of the few threads of Swift's cooperative pool (as many as the
/// machine has cores, two on a CI box) for as long as it blocks, and every other test's
/// waits would queue behind it.
///
/// ```swift
/// let answer = await onOwnThread { client.readAll() }
/// ```
public func onOwnThread<Value: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () throws(Failure) -> Value
) async throws(Failure) -> Value {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
        let thread = Thread {
            do throws(Failure) {
                continuation.resume(returning: .success(try work()))
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        thread.name = "blocking test work"
        thread.start()
    }
    return try result.get()
}

import Foundation

/// A task executor with one thread of its own: the jobs of tasks that prefer it run there,
/// in order, instead of on Swift's cooperative pool.
///
/// The pool has as many threads as the machine has cores (two on a CI box). A test that
/// computes for seconds without suspending holds one of them all that time, and every other
/// test's waits — its timers, its D-Bus and MQTT replies — queue behind it; on a thread of
/// its own the kernel shares the cores between it and the pool instead.
///
/// ```swift
/// let executor = ThreadExecutor(name: "cpu-bound test")
/// defer { executor.shutDown() }
/// try await withTaskExecutorPreference(executor) { try await work() }
/// ```
public final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    // `jobs` and `isShutDown` are read and written under `condition` only.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var isShutDown = false

    /// Starts the executor's thread, named `name`.
    public init(name: String) {
        let thread = Thread { [self] in runJobs() }
        thread.name = name
        thread.start()
    }

    /// Queues `job` to run on the executor's thread.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    /// Lets the thread end once the jobs already queued have run.
    public func shutDown() {
        condition.withLock {
            isShutDown = true
            condition.signal()
        }
    }

    private func runJobs() {
        while let job = nextJob() {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// The next job, waiting for one; `nil` once shut down with none left.
    private func nextJob() -> UnownedJob? {
        condition.withLock {
            while jobs.isEmpty && !isShutDown { condition.wait() }
            return jobs.isEmpty ? nil : jobs.removeFirst()
        }
    }
}

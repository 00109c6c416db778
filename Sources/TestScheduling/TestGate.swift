/// Lets at most `width` test cases through at a time; the others wait their turn suspended
/// (holding no thread), first come first served.
///
/// ``CPUBound`` passes one test case at a time: on its own thread a CPU-bound test no longer
/// holds the cooperative pool, but a dozen of them at once would still take the cores from
/// the tests that wait on processes and sockets. ``WholeHall`` passes a few: a hall of
/// processes mostly waits on them, but a score of halls at once would starve each other.
actor TestGate {
    /// How many test cases may hold the gate at once.
    let width: Int
    private var holders = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// A gate that lets `width` (at least one) test cases through at once.
    init(width: Int) {
        precondition(width >= 1, "a gate lets at least one test case through")
        self.width = width
    }

    /// Waits until the gate has room and takes a place in it.
    func enter() async {
        guard holders >= width else {
            holders += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the place to the next in line, or frees it.
    func leave() {
        if waiting.isEmpty {
            holders -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }

    /// Runs `body` holding a place in the gate, and frees the place however `body` ends.
    nonisolated func pass(_ body: @Sendable () async throws -> Void) async throws {
        await enter()
        let result: Result<Void, any Error>
        do {
            try await body()
            result = .success(())
        } catch {
            result = .failure(error)
        }
        await leave()
        try result.get()
    }
}

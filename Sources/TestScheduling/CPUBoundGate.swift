/// Lets one ``CPUBound`` test case compute at a time; the others wait their turn suspended
/// (holding no thread), first come first served.
///
/// On its own thread a CPU-bound test no longer holds the cooperative pool, but a dozen of
/// them at once would still take the cores from the tests that wait on processes and
/// sockets; one at a time leaves the rest of the machine to those.
actor CPUBoundGate {
    /// The gate every ``CPUBound`` test passes.
    static let shared = CPUBoundGate()

    private var isHeld = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Waits until the gate is free and holds it.
    func enter() async {
        guard isHeld else {
            isHeld = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Passes the gate to the next in line, or frees it.
    func leave() {
        if waiting.isEmpty {
            isHeld = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}

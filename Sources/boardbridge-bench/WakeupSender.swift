import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The sending side of the wake-up floor (``WakeupFloor``), run in a child process: the
/// bench starts itself as `boardbridge-bench --wakeup-sender INTERVAL_MS SIZE SEED FD,FD,…`
/// with the sending ends of the socket pairs inherited, as `boardsim` is a separate process
/// writing to the bridge's notification sockets.
///
/// One thread plays every board's timer: each descriptor gets a datagram of `SIZE` bytes
/// every `INTERVAL_MS`, starting at an independent random phase in the first interval. It
/// sleeps with `clock_nanosleep` until the next one is due (absolute deadlines, so timers do
/// not drift) and sends everything due by then. It exits when every receiving end is closed
/// (or when the bench stops it by PID).
enum WakeupSender {
    /// The hidden first argument that selects this mode.
    static let argument = "--wakeup-sender"

    /// Runs the sender with `arguments` (after ``argument``); returns the exit status.
    static func main(arguments: [String]) -> Int32 {
        guard arguments.count == 4, let intervalMilliseconds = UInt64(arguments[0]), intervalMilliseconds > 0,
            let size = Int(arguments[1]), size > 0, let seed = UInt64(arguments[2])
        else {
            FileHandle.standardError.write(Data("usage: \(argument) INTERVAL_MS SIZE SEED FD,FD,…\n".utf8))
            return 2
        }
        let descriptors = arguments[3].split(separator: ",").compactMap { Int32($0) }
        guard !descriptors.isEmpty else { return 2 }
        run(descriptors: descriptors, interval: intervalMilliseconds * 1_000_000, size: size, seed: seed)
        return 0
    }

    /// Sends until every descriptor is closed at the other end.
    private static func run(descriptors: [Int32], interval: UInt64, size: Int, seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let start = monotonicNanoseconds()
        var due = descriptors.map { _ in start + UInt64.random(in: 0..<interval, using: &generator) }
        var open = descriptors.map { _ in true }
        var payload = [UInt8](repeating: 0x21, count: size)
        var sent: UInt64 = 0
        while open.contains(true) {
            var next = UInt64.max
            for index in due.indices where open[index] { next = min(next, due[index]) }
            var deadline = timespec(tv_sec: Int(next / 1_000_000_000), tv_nsec: Int(next % 1_000_000_000))
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
            let now = monotonicNanoseconds()
            for index in due.indices where open[index] && due[index] <= now {
                sent &+= 1
                payload[0] = UInt8(truncatingIfNeeded: sent)
                let result = payload.withUnsafeBytes { bytes in
                    send(descriptors[index], bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                }
                // A full queue (no reader for a while) drops the datagram, as a board's
                // notification is lost when nobody reads; a closed peer ends that board.
                if result < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR { open[index] = false }
                due[index] += interval
                // Far behind (the process was stopped): start again from now, keep the phase.
                if due[index] + interval <= now { due[index] = now + interval - (now - due[index]) % interval }
            }
        }
    }

    /// CLOCK_MONOTONIC in nanoseconds.
    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

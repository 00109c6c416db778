#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `CLOCK_BOOTTIME` in nanoseconds, the clock boardsim stamps its notifications with (and
/// Swift's `ContinuousClock` reads on Linux): comparable across the bench's processes.
enum BootClock {
    static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

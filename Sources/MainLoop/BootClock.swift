#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `CLOCK_BOOTTIME` in nanoseconds: the clock Swift's `ContinuousClock` reads on Linux,
/// comparable between processes of one machine (boardsim stamps the notifications it sends
/// with it; the benchmark's subscriber stamps arrivals).
public enum BootClock {
    /// Now.
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

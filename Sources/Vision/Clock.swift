#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic wall clock and CPU time of the calling thread, seconds. Stages and the harness
/// (decode, whole runs) time themselves with the same clocks.
public enum StageClock {
    public static func wall() -> Double { read(CLOCK_MONOTONIC) }
    public static func threadCPU() -> Double { read(CLOCK_THREAD_CPUTIME_ID) }

    private static func read(_ id: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(id, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}

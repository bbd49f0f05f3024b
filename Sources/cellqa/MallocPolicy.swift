import CMalloc
import Foundation

/// How the cellqa process sets glibc malloc; the library targets never touch it.
///
/// The pipeline allocates a dozen image-sized planes per image (8 MiB each at 1920x1080) and
/// frees them when the image is done. Left to itself, glibc serves such blocks from fresh
/// mappings until a free raises its sliding threshold, and hands a heap's free top back to the
/// system once it passes twice that threshold, so the next image faults the same pages in
/// again. Measured on the 40 images of the independent stand-in set (fifty-seventh session):
/// `cellqa run --jobs 2` took 200,000-330,000 page faults and 2.76-2.86 s wall, against 25,000
/// and 2.53-2.56 s with these thresholds; `--jobs 1` 4.97-5.00 s against 4.81-4.85 s; peak
/// RSS 118-122 MiB against 127-130 MiB.
enum MallocPolicy {
    /// Blocks up to this size come from the heap: glibc's own ceiling for its sliding
    /// threshold on 64-bit systems (the largest value it accepts).
    static let mmapThreshold = 32 << 20
    /// Free memory at a heap's top is kept up to this size.
    static let trimThreshold = 64 << 20

    enum Outcome: Equatable, Sendable {
        /// The thresholds above are in force.
        case set
        /// The environment tunes malloc itself (`environmentTunesMalloc`); its settings stand.
        case leftToEnvironment
        /// The C library refused them (or is not glibc): its defaults apply.
        case refused
    }

    /// Applied once, by the first reader (`CellQA.main` reads it before anything allocates
    /// much).
    static let outcome: Outcome = apply(environment: ProcessInfo.processInfo.environment)

    /// Whether the environment already tunes malloc: `GLIBC_TUNABLES` naming a
    /// `glibc.malloc.` tunable, or one of glibc's `MALLOC_...` variables
    /// (`MALLOC_TRIM_THRESHOLD_`, `MALLOC_ARENA_MAX`, ...).
    static func environmentTunesMalloc(_ environment: [String: String]) -> Bool {
        if environment["GLIBC_TUNABLES"]?.contains("glibc.malloc.") == true { return true }
        return environment.keys.contains { $0.hasPrefix("MALLOC_") }
    }

    static func apply(environment: [String: String]) -> Outcome {
        if environmentTunesMalloc(environment) { return .leftToEnvironment }
        return cq_set_malloc_thresholds(mmapThreshold, trimThreshold) == 1 ? .set : .refused
    }

    /// One line for benchmark output, whose figures the allocator moves.
    static var description: String {
        switch outcome {
        case .set:
            return "allocator: glibc malloc thresholds set by cellqa (mmap \(mmapThreshold >> 20) MiB, trim \(trimThreshold >> 20) MiB)"
        case .leftToEnvironment:
            return "allocator: malloc settings left to the environment (GLIBC_TUNABLES or MALLOC_*)"
        case .refused:
            return "allocator: the C library's malloc defaults (it refused cellqa's thresholds)"
        }
    }
}

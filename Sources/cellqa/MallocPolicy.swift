import CMalloc
import Foundation

/// How the cellqa process sets glibc malloc; the library targets never touch it.
///
/// The pipeline allocates a dozen image-sized planes per image (8 MiB each at 1920x1080, 12 MiB
/// at 4000x3000 on the working scale) and a decoded image (36-48 MiB at 12-16 megapixels), and
/// frees them when the image is done. Left to itself, glibc serves large blocks from fresh
/// mappings, hands a heap's free top back to the system, and unmaps a worker thread's heap
/// (64 MiB at most) the moment it is empty, so the next image faults the same pages in again
/// (12,000 page faults per 48 MiB).
///
/// So every block comes from a heap (no mappings: blocks over 32 MiB, which no mmap threshold
/// keeps in the heap, are the decoded images of phone cameras), and every heap keeps
/// `topPad` of free memory, which keeps a worker's emptied heap mapped (glibc unmaps one
/// only where the heap before it has that much room to spare). Measured with `cellqa run`
/// (fifty-ninth session, two alternating rounds against the fifty-seventh session's two
/// thresholds, blocks up to 32 MiB from the heap and 64 MiB of free top kept): the 40 real
/// 4908x3264 views of `hemocytometer-ahnd6474` with `--jobs 2` 3.92-4.05 s and 493,000 page
/// faults against 3.52-3.53 s and 48,000, with `--jobs 1` 7.58-7.63 s against 6.76-6.86 s; 8
/// synthetic 4000x3000 views with `--jobs 2` 2.81-2.89 s against 2.57-2.58 s, peak RSS
/// 547-564 against 526 MiB; the 40 1920x1080 views of the independent set unchanged (those
/// thresholds had taken them from 2.76-2.86 s with glibc's defaults to 2.53-2.56 s with
/// `--jobs 2`). One heap for every thread (`M_ARENA_MAX` 1) did as well with one worker but
/// made two 13 % slower, contending for it.
enum MallocPolicy {
    /// Every heap grows by this much more than it needs and keeps this much free.
    static let topPad = 64 << 20
    /// Free memory at a heap's top is given back to the system beyond this size. Only the main
    /// heap can hold so much (a worker's heaps are 64 MiB each): the main thread's `cellqa
    /// count` and benchmarks keep their planes from one image to the next, and the runner
    /// trims the heaps after the fixture runs (`releaseWorkersMemory`).
    static let trimThreshold = 1 << 30

    enum Outcome: Equatable, Sendable {
        /// The settings above are in force.
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
        return cq_set_malloc_policy(topPad, trimThreshold) == 1 ? .set : .refused
    }

    /// One line for benchmark output, whose figures the allocator moves.
    static var description: String {
        switch outcome {
        case .set:
            return "allocator: glibc malloc set by cellqa (no mappings, top pad \(topPad >> 20) MiB, trim \(trimThreshold >> 20) MiB)"
        case .leftToEnvironment:
            return "allocator: malloc settings left to the environment (GLIBC_TUNABLES or MALLOC_*)"
        case .refused:
            return "allocator: the C library's malloc defaults (it refused cellqa's settings)"
        }
    }
}

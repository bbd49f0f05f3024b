import CMalloc
import Foundation

/// How the cellqa process sets glibc malloc; the library targets never touch it.
///
/// The pipeline allocates a dozen image-sized planes per image (8 MiB each at 1920x1080, 12 MiB
/// at 4000x3000 on the working scale) and a decoded image (36-48 MiB at 12-16 megapixels), and
/// frees them when the image is done. Left to itself, glibc serves large blocks from fresh
/// mappings until a free raises its sliding threshold, hands a heap's free top back to the
/// system, and unmaps a worker thread's heap (64 MiB at most) as soon as it is empty, so the
/// next image faults the same pages in again (12,000 faults per 48 MiB).
///
/// Every command starts with two thresholds set (`outcome`): blocks up to 32 MiB from the
/// heap, up to 64 MiB of free top kept (fifty-seventh session: the 40 1920x1080 views of the independent set with
/// `cellqa run --jobs 2` 2.53-2.56 s and 25,000 page faults against 2.76-2.86 s and
/// 200,000-330,000 with glibc's defaults). A command that runs the pipeline on one thread
/// (`oneThread()`) then also puts every block, whatever its size, in one heap that keeps its
/// free memory during the run (fifty-ninth session, two alternating rounds, `--jobs 1`: the 40
/// real 4908x3264 views of `hemocytometer-ahnd6474` 7.61-7.65 s and 481,000 page faults
/// against 6.74-6.83 s and 24,000; 8 synthetic 4000x3000 views 5.47-5.64 s against 4.78-4.79 s,
/// peak RSS 323-341 MiB against 267 MiB; 1920x1080 views unchanged). Not with more workers:
/// one heap for every thread made `--jobs 2` on the independent views 13 % slower (2.47-2.53
/// against 2.82-2.84 s, three rounds), the workers contending for it.
enum MallocPolicy {
    /// Blocks up to this size come from the heap: glibc's own ceiling for its sliding
    /// threshold on 64-bit systems (the largest value it accepts).
    static let mmapThreshold = 32 << 20
    /// Free memory at a heap's top is kept up to this size.
    static let trimThreshold = 64 << 20
    /// Free memory kept at the top of the one heap of `oneThread()`: all of it, in practice
    /// (the harness gives it back after the fixture runs, `releaseWorkersMemory`).
    static let oneHeapTrimThreshold = 1 << 30

    enum Outcome: Equatable, Sendable {
        /// One heap for every thread, no mappings (`oneThread()`).
        case oneHeap
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

    /// For a command that runs the pipeline on one thread at a time (`cellqa count`,
    /// `cellqa bench pipeline`, `--jobs 1`), called before that work starts: one heap for
    /// every thread with no mappings, where cellqa's thresholds are in force. Returns the
    /// policy then in force.
    @discardableResult
    static func oneThread() -> Outcome { oneThreadOutcome }

    private static let oneThreadOutcome: Outcome =
        outcome == .set && cq_set_single_heap(oneHeapTrimThreshold) == 1 ? .oneHeap : outcome

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
    static func description(_ outcome: Outcome) -> String {
        switch outcome {
        case .oneHeap:
            return "allocator: one glibc malloc heap, no mappings, trim \(oneHeapTrimThreshold >> 20) MiB (set by cellqa for one thread)"
        case .set:
            return "allocator: glibc malloc thresholds set by cellqa (mmap \(mmapThreshold >> 20) MiB, trim \(trimThreshold >> 20) MiB)"
        case .leftToEnvironment:
            return "allocator: malloc settings left to the environment (GLIBC_TUNABLES or MALLOC_*)"
        case .refused:
            return "allocator: the C library's malloc defaults (it refused cellqa's thresholds)"
        }
    }
}

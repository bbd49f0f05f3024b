import Dispatch
import Synchronization
import Testing
import Imaging

@Suite struct ConcurrentDecodeTests {
    @Test func decodersKeepNoSharedStateBetweenThreads() throws {
        // The C shim keeps all state on the stack of each call, so parallel decodes of good and
        // damaged files must not disturb each other.
        let expectedPNG = try Image.decode(smallPNG)
        let expectedJPEG = try Image.decode(smallJPEG)
        let cutJPEG = Array(smallJPEG.prefix(smallJPEG.count / 2))
        let mismatches = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 48) { index in
            let ok: Bool
            switch index % 3 {
            case 0: ok = (try? Image.decode(smallPNG)) == expectedPNG
            case 1: ok = (try? Image.decode(smallJPEG)) == expectedJPEG
            default:
                do {
                    _ = try Image.decode(cutJPEG)
                    ok = false
                } catch {
                    if case ImageError.truncated = error { ok = true } else { ok = false }
                }
            }
            if !ok { mismatches.withLock { $0 += 1 } }
        }
        #expect(mismatches.withLock { $0 } == 0)
    }
}

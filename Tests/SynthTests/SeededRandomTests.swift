import Testing
@testable import Synth

@Suite("Seeded random numbers")
struct SeededRandomTests {
    @Test("streams are reproducible and depend on seed and stream")
    func reproducible() {
        var a = SeededRandom(seed: 42)
        var b = SeededRandom(seed: 42)
        var c = SeededRandom(seed: 43)
        var d = SeededRandom(seed: 42, stream: 1)
        let sa = (0..<8).map { _ in a.next() }
        #expect(sa == (0..<8).map { _ in b.next() })
        #expect(sa != (0..<8).map { _ in c.next() })
        #expect(sa != (0..<8).map { _ in d.next() })
    }

    @Test("SplitMix64 matches the reference sequence")
    func splitMixReference() {
        // Reference values of SplitMix64 seeded with 0 (Vigna's splitmix64.c).
        var state: UInt64 = 0
        #expect(SeededRandom.splitMix(&state) == 0xE220_A839_7B1D_CDAF)
        #expect(SeededRandom.splitMix(&state) == 0x6E78_9E6A_A1B9_65F4)
    }

    @Test("uniform, integer and normal draws have the right range and moments")
    func moments() {
        var rng = SeededRandom(seed: 7)
        let n = 100_000
        var sum = 0.0, sumSq = 0.0, fastSum = 0.0, fastSq = 0.0
        for _ in 0..<n {
            let u = rng.unit()
            #expect(u >= 0 && u < 1)
            let z = rng.normal()
            sum += z
            sumSq += z * z
            let f = Double(rng.fastNormal())
            fastSum += f
            fastSq += f * f
        }
        #expect(abs(sum / Double(n)) < 0.02)
        #expect(abs(sumSq / Double(n) - 1) < 0.03)
        #expect(abs(fastSum / Double(n)) < 0.02)
        #expect(abs(fastSq / Double(n) - 1) < 0.03)
        var seen = Set<Int>()
        for _ in 0..<1000 { seen.insert(rng.int(3...6)) }
        #expect(seen == [3, 4, 5, 6])
    }
}

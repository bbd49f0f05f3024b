import CKernels
import Foundation
import Testing
@testable import Vision

/// The pixel-by-pixel projection of directions near the diagonals (`ck_projection_scatter`)
/// against the same additions written in Swift: the same bins, guards and partial sums, bit
/// for bit, on rows inside the profile and on rows that reach past it (the clamped path).
@Suite("Projection scatter")
struct ProjectionScatterTests {
    /// `ck_projection_scatter`'s contract, one pixel at a time.
    static func reference(_ plane: Plane, along: [Float], bases: [Float], bins: Int) -> (partial: [Double], pixels: [Int32]) {
        var partial = [Double](repeating: 0, count: 4 * (bins + 2)), pixels = [Int32](repeating: 0, count: 4 * (bins + 2))
        for y in 0..<plane.height {
            for x in 0..<plane.width {
                let t = bases[y] + along[x]
                let bin = !(t > -1.5) ? -1 : !(t < Float(bins) + 0.5) ? bins : Int(t)
                let k = 4 * (bin + 1) + (x & 3)
                partial[k] += Double(plane.data[y * plane.width + x])
                pixels[k] += 1
            }
        }
        return (partial, pixels)
    }

    @Test(arguments: [(1, 1), (3, 5), (97, 61), (203, 117), (300, 7)])
    func kernelMatchesItsSwiftLoop(size: (Int, Int)) {
        let (w, h) = size
        let plane = KernelReferenceTests.noisePlane(width: w, height: h, seed: UInt64(3 * w + h))
        for degrees in [21.0, 30, 44.99, 45, 60, 135, 160, 200, 315] {
            let a = degrees * .pi / 180, nx = cos(a), ny = sin(a)
            let corners = [0.0, nx * Double(w - 1), ny * Double(h - 1), nx * Double(w - 1) + ny * Double(h - 1)]
            let lo = corners.min()!, bins = Int(corners.max()! - lo) + 1
            let along = (0..<w).map { Float($0) * Float(nx) }
            // The layout's own bases, then bases shifted so rows run past either end of the
            // profile (and one row of NaN): the clamped path.
            let exact = (0..<h).map { Float(Double($0) * ny - lo) }
            let shifted: [Float] = exact.indices.map { y in
                switch y % 5 {
                case 1: return exact[y] - 3
                case 2: return exact[y] + Float(bins)
                case 3: return .nan
                default: return exact[y]
                }
            }
            for bases in [exact, shifted] {
                var partial = [Double](repeating: 0, count: 4 * (bins + 2)), pixels = [Int32](repeating: 0, count: 4 * (bins + 2))
                ck_projection_scatter(plane.data, w, h, along, bases, bins, &partial, &pixels)
                let want = Self.reference(plane, along: along, bases: bases, bins: bins)
                #expect(partial.map { $0.bitPattern } == want.partial.map { $0.bitPattern }, "\(w)x\(h) normal \(degrees)")
                #expect(pixels == want.pixels, "\(w)x\(h) normal \(degrees)")
                #expect(pixels.reduce(0, +) == Int32(w * h))
            }
        }
    }
}

import CKernels
import Foundation

/// Absolute log contrast |log flat|, smoothed: clear live cells (bright centre, dark rim) and
/// dark dead cells both light up as filled discs; flat background stays near 0. In the log
/// domain absorptions multiply into sums, which is what lets `removeLines` take crossing grid
/// lines apart.
///
/// - Parameters:
///   - logFlat: log of the flattened luminance (`logPlane`), which the boundary tests reuse.
///   - sigma: smoothing sigma, pixels.
public func logContrast(logFlat: Plane, sigma: Double) -> Plane {
    gaussianBlur(logFlat.map { abs($0) }, sigma: sigma)
}

/// Natural log of every sample, floored at 1e-4 (`ck_log_floor`: within about an ulp of
/// `log`, vectorised; libm's logf is a call per sample, 34 instructions a pixel here).
public func logPlane(_ plane: Plane) -> Plane {
    plane.data.withUnsafeBufferPointer { d in
        Plane(width: plane.width, height: plane.height) { out in ck_log_floor(d.baseAddress!, out, d.count, 1e-4) }
    }
}

/// Soft saturation `cap * tanh(x / cap)`: stops a tiny refractile highlight from outweighing
/// the whole cell (which would pull the blob scale below the cell size) and evens out cells
/// of different contrast. `cap <= 0` returns the input. (`fastTanh`: within 4e-7 of tanh.)
public func saturate(_ plane: Plane, cap: Double) -> Plane {
    guard cap > 0 else { return plane }
    let c = Float(cap)
    // Into a new plane: the input is still held by the caller, so changing it in place would
    // copy it first.
    return plane.data.withUnsafeBufferPointer { d in Plane(width: plane.width, height: plane.height) { p in
        typealias V = SIMD8<Float>
        guard let s = d.baseAddress else { return }
        let n = d.count
        var i = 0
        while i &+ 8 <= n {
            let v = UnsafeRawPointer(s + i).loadUnaligned(as: V.self)
            UnsafeMutableRawPointer(p + i).storeBytes(of: c * fastTanh(v / c), as: V.self)
            i &+= 8
        }
        while i < n {
            p[i] = c * fastTanh(s[i] / c)
            i &+= 1
        }
    } }
}

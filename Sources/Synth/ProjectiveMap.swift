import Foundation

/// A 3 x 3 projective transform (row-major), enough to place the chamber in the picture.
///
/// The counting library's `Homography` (module Hemocytometer) has the full solver, but
/// Package.swift does not let Synth depend on Hemocytometer, so the generator composes its
/// own forward transform from scale, rotation and a small perspective term, and only needs
/// apply + inverse.
struct ProjectiveMap: Sendable, Equatable {
    var m: [Double]

    static let identity = ProjectiveMap(m: [1, 0, 0, 0, 1, 0, 0, 0, 1])

    /// `self ∘ other`: applies `other` first.
    func after(_ other: ProjectiveMap) -> ProjectiveMap {
        var r = [Double](repeating: 0, count: 9)
        for i in 0..<3 {
            for j in 0..<3 {
                r[i * 3 + j] = m[i * 3] * other.m[j] + m[i * 3 + 1] * other.m[3 + j] + m[i * 3 + 2] * other.m[6 + j]
            }
        }
        return ProjectiveMap(m: r)
    }

    static func translation(_ x: Double, _ y: Double) -> ProjectiveMap {
        ProjectiveMap(m: [1, 0, x, 0, 1, y, 0, 0, 1])
    }

    static func scaleRotation(scale: Double, radians: Double) -> ProjectiveMap {
        let c = scale * cos(radians)
        let s = scale * sin(radians)
        return ProjectiveMap(m: [c, -s, 0, s, c, 0, 0, 0, 1])
    }

    /// A keystone: points are divided by 1 + px * x + py * y (x, y relative to the origin).
    static func perspective(px: Double, py: Double) -> ProjectiveMap {
        ProjectiveMap(m: [1, 0, 0, 0, 1, 0, px, py, 1])
    }

    func apply(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        let w = m[6] * x + m[7] * y + m[8]
        return ((m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w)
    }

    /// The inverse via the adjugate; the generator only builds well-conditioned maps
    /// (scale > 0, perspective terms around 1e-5 per pixel), so it is never singular.
    var inverse: ProjectiveMap {
        let a = m
        let det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6])
        let adj = [
            a[4] * a[8] - a[5] * a[7], a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
            a[5] * a[6] - a[3] * a[8], a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
            a[3] * a[7] - a[4] * a[6], a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3],
        ]
        return ProjectiveMap(m: adj.map { $0 / det })
    }
}

import Foundation

/// A plane projective transform: a 3 x 3 matrix acting on homogeneous points (x, y, 1).
///
/// Used to map image pixels to chamber micrometres (and back) when the grid is rotated or
/// seen in slight perspective. Units are whatever the correspondences were given in.
public struct Homography: Sendable, Equatable {
    /// Row-major 3 x 3 matrix.
    public var matrix: [Double]

    /// Wraps a row-major 3 x 3 matrix; nil unless it has 9 finite entries.
    public init?(matrix: [Double]) {
        guard matrix.count == 9, matrix.allSatisfy(\.isFinite) else { return nil }
        self.matrix = matrix
    }

    public static let identity = Homography(unchecked: [1, 0, 0, 0, 1, 0, 0, 0, 1])

    fileprivate init(unchecked matrix: [Double]) {
        self.matrix = matrix
    }

    /// A similarity transform: scale, then rotate by `rotationRadians` (counter-clockwise in
    /// a y-up frame, i.e. clockwise on screen with y down), then translate.
    public static func similarity(scale: Double, rotationRadians: Double, translation: Point) -> Homography {
        let c = scale * cos(rotationRadians)
        let s = scale * sin(rotationRadians)
        return Homography(unchecked: [c, -s, translation.x, s, c, translation.y, 0, 0, 1])
    }

    /// The homography taking each `source[i]` to `target[i]`, from exactly four
    /// correspondences (direct linear transform with Hartley normalisation, solved by
    /// Gaussian elimination with partial pivoting). Returns nil when the points are
    /// degenerate (three collinear, repeated, or not finite) and when the centroid of the
    /// source points would map to infinity, which never happens for a camera view of a plane.
    public init?(from source: [Point], to target: [Point]) {
        guard source.count == 4, target.count == 4,
              let ns = Normalisation(source), let nt = Normalisation(target),
              !ns.hasCollinearTriple(source), !nt.hasCollinearTriple(target) else { return nil }
        // With h33 fixed to 1 each correspondence gives two linear equations in h11...h32.
        var a = [Double](repeating: 0, count: 8 * 9)
        for i in 0..<4 {
            let p = ns.apply(source[i])
            let q = nt.apply(target[i])
            let r0 = 2 * i * 9
            let r1 = r0 + 9
            a[r0 + 0] = p.x; a[r0 + 1] = p.y; a[r0 + 2] = 1
            a[r0 + 6] = -q.x * p.x; a[r0 + 7] = -q.x * p.y; a[r0 + 8] = q.x
            a[r1 + 3] = p.x; a[r1 + 4] = p.y; a[r1 + 5] = 1
            a[r1 + 6] = -q.y * p.x; a[r1 + 7] = -q.y * p.y; a[r1 + 8] = q.y
        }
        guard let h = solveLinearSystem(augmented: a, unknowns: 8) else { return nil }
        let normalised = Homography(unchecked: h + [1])
        // Undo the normalisations: H = Tt^-1 * Hn * Ts.
        let full = nt.inverseMatrix.multiplied(by: normalised).multiplied(by: ns.matrix)
        guard let scaled = full.scaledToUnitCorner(), scaled.determinant.magnitude > 1e-300 else { return nil }
        self = scaled
    }

    /// Maps a point; nil when it maps to infinity (the point lies on the horizon line).
    public func apply(_ p: Point) -> Point? {
        let m = matrix
        let w = m[6] * p.x + m[7] * p.y + m[8]
        guard w.magnitude > 1e-12 else { return nil }
        let x = (m[0] * p.x + m[1] * p.y + m[2]) / w
        let y = (m[3] * p.x + m[4] * p.y + m[5]) / w
        guard x.isFinite, y.isFinite else { return nil }
        return Point(x: x, y: y)
    }

    /// The inverse transform; nil when the matrix is singular.
    public var inverse: Homography? {
        let m = matrix
        let det = determinant
        guard det.isFinite, det.magnitude > 1e-300 else { return nil }
        let adjugate = [
            m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
            m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
            m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
        ]
        let inv = Homography(unchecked: adjugate.map { $0 / det })
        guard inv.matrix.allSatisfy(\.isFinite) else { return nil }
        return inv.scaledToUnitCorner() ?? inv
    }

    public var determinant: Double {
        let m = matrix
        return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6])
            + m[2] * (m[3] * m[7] - m[4] * m[6])
    }

    /// The composition `self ∘ other`: applies `other` first, then `self`.
    public func multiplied(by other: Homography) -> Homography {
        var r = [Double](repeating: 0, count: 9)
        for i in 0..<3 {
            for j in 0..<3 {
                r[i * 3 + j] = matrix[i * 3] * other.matrix[j] + matrix[i * 3 + 1] * other.matrix[3 + j]
                    + matrix[i * 3 + 2] * other.matrix[6 + j]
            }
        }
        return Homography(unchecked: r)
    }

    /// The same transform with h33 = 1 (homographies are defined up to scale); nil when h33
    /// is too close to zero to divide by.
    private func scaledToUnitCorner() -> Homography? {
        let s = matrix[8]
        guard s.magnitude > 1e-12 else { return nil }
        let r = matrix.map { $0 / s }
        guard r.allSatisfy(\.isFinite) else { return nil }
        return Homography(unchecked: r)
    }
}

/// Hartley normalisation: translate the centroid to the origin and scale so the mean distance
/// from it is sqrt(2); keeps the DLT well conditioned whatever the units.
private struct Normalisation {
    let matrix: Homography
    let inverseMatrix: Homography
    let cx: Double
    let cy: Double
    let scale: Double

    init?(_ points: [Point]) {
        guard points.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return nil }
        let n = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.x } / n
        let meanY = points.reduce(0) { $0 + $1.y } / n
        let meanDistance = points.reduce(0) { $0 + (($1.x - meanX) * ($1.x - meanX) + ($1.y - meanY) * ($1.y - meanY)).squareRoot() } / n
        guard meanDistance > 0, meanDistance.isFinite else { return nil }
        let s = 2.0.squareRoot() / meanDistance
        cx = meanX
        cy = meanY
        scale = s
        matrix = Homography(unchecked: [s, 0, -s * meanX, 0, s, -s * meanY, 0, 0, 1])
        inverseMatrix = Homography(unchecked: [1 / s, 0, meanX, 0, 1 / s, meanY, 0, 0, 1])
    }

    func apply(_ p: Point) -> Point {
        Point(x: (p.x - cx) * scale, y: (p.y - cy) * scale)
    }

    /// True when three of the points are (nearly) collinear, which leaves a four-point
    /// homography undetermined or singular. Tested in normalised coordinates, where the
    /// points are O(1) apart, so one absolute tolerance fits every unit.
    func hasCollinearTriple(_ points: [Point]) -> Bool {
        let q = points.map(apply)
        for i in 0..<q.count {
            for j in (i + 1)..<q.count {
                for k in (j + 1)..<max(j + 1, q.count) {
                    let cross = (q[j].x - q[i].x) * (q[k].y - q[i].y) - (q[j].y - q[i].y) * (q[k].x - q[i].x)
                    if cross.magnitude < 1e-9 { return true }
                }
            }
        }
        return false
    }
}

/// Solves an n x n linear system given as a row-major augmented matrix (n rows of n + 1
/// values) by Gaussian elimination with partial pivoting. Returns nil when a pivot is
/// (relatively) zero, i.e. the system is singular or nearly so.
public func solveLinearSystem(augmented: [Double], unknowns n: Int) -> [Double]? {
    let rowLength = n + 1
    guard augmented.count == n * rowLength else { return nil }
    var a = augmented
    let scale = a.reduce(0) { max($0, $1.magnitude) }
    guard scale > 0, scale.isFinite else { return nil }
    let tolerance = scale * 1e-12
    for col in 0..<n {
        var pivotRow = col
        var best = a[col * rowLength + col].magnitude
        for row in (col + 1)..<max(col + 1, n) where a[row * rowLength + col].magnitude > best {
            best = a[row * rowLength + col].magnitude
            pivotRow = row
        }
        guard best > tolerance else { return nil }
        if pivotRow != col {
            for k in 0..<rowLength {
                a.swapAt(col * rowLength + k, pivotRow * rowLength + k)
            }
        }
        let pivot = a[col * rowLength + col]
        for row in (col + 1)..<max(col + 1, n) {
            let factor = a[row * rowLength + col] / pivot
            if factor == 0 { continue }
            for k in col..<rowLength {
                a[row * rowLength + k] -= factor * a[col * rowLength + k]
            }
        }
    }
    var x = [Double](repeating: 0, count: n)
    for row in stride(from: n - 1, through: 0, by: -1) {
        var sum = a[row * rowLength + n]
        for k in (row + 1)..<max(row + 1, n) {
            sum -= a[row * rowLength + k] * x[k]
        }
        x[row] = sum / a[row * rowLength + row]
    }
    guard x.allSatisfy(\.isFinite) else { return nil }
    return x
}

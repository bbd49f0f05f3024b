import Foundation

/// Unit vectors of `count` rays evenly round a centre, the first along +x, turning towards +y
/// (image coordinates: clockwise on screen).
func rayDirections(_ count: Int) -> [(dx: Double, dy: Double)] {
    (0..<max(0, count)).map { k in
        let a = Double(k) * 2 * .pi / Double(count)
        return (cos(a), sin(a))
    }
}

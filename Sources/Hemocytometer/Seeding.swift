import Foundation

/// How to prepare a culture: how much cell suspension to take and how much medium to add.
public struct SeedingPlan: Sendable, Equatable {
    /// Volume of counted suspension to take, mL.
    public var suspensionVolumeML: Double
    /// Volume of fresh medium to add, mL; suspension + medium = the final volume.
    public var mediumVolumeML: Double
    public init(suspensionVolumeML: Double, mediumVolumeML: Double) {
        self.suspensionVolumeML = suspensionVolumeML
        self.mediumVolumeML = mediumVolumeML
    }
}

public enum SeedingError: Error, Equatable, CustomStringConvertible {
    /// A named input was zero, negative or not finite.
    case notPositive(field: String, value: Double)
    /// The suspension is too dilute: reaching the target needs more than the final volume.
    case suspensionTooDilute(requiredML: Double, finalVolumeML: Double)

    public var description: String { "seeding: " + reason }

    /// What is wrong, without the "seeding: " that `description` leads with.
    public var reason: String {
        switch self {
        case let .notPositive(field, value):
            return "\(field) must be a positive finite number, got \(value)"
        case let .suspensionTooDilute(required, final):
            return "the target needs " + String(format: "%.4g", required)
                + " mL of suspension, more than the final volume " + String(format: "%.4g", final) + " mL"
        }
    }
}

/// The seeding calculation C1 V1 = N: volume of suspension holding `targetCells` cells,
/// topped up with medium to `finalVolumeML`.
///
/// - Parameters:
///   - concentrationPerML: counted concentration of the suspension, cells/mL.
///   - targetCells: number of cells wanted in the final volume.
///   - finalVolumeML: final volume, mL.
/// - Throws: `SeedingError.notPositive` for a zero, negative or non-finite input;
///   `SeedingError.suspensionTooDilute` when the suspension needed exceeds the final volume.
public func seedingPlan(concentrationPerML: Double, targetCells: Double, finalVolumeML: Double) throws -> SeedingPlan {
    for (field, value) in [("concentrationPerML", concentrationPerML), ("targetCells", targetCells),
                           ("finalVolumeML", finalVolumeML)] where !(value.isFinite && value > 0) {
        throw SeedingError.notPositive(field: field, value: value)
    }
    let suspension = targetCells / concentrationPerML
    guard suspension.isFinite, suspension <= finalVolumeML else {
        throw SeedingError.suspensionTooDilute(requiredML: suspension, finalVolumeML: finalVolumeML)
    }
    return SeedingPlan(suspensionVolumeML: suspension, mediumVolumeML: finalVolumeML - suspension)
}

import Testing
@testable import Hemocytometer

@Suite("Seeding")
struct SeedingTests {
    @Test func plan() throws {
        let plan = try seedingPlan(concentrationPerML: 1e6, targetCells: 2e5, finalVolumeML: 10)
        #expect(abs(plan.suspensionVolumeML - 0.2) < 1e-12)
        #expect(abs(plan.mediumVolumeML - 9.8) < 1e-12)
    }

    @Test("exactly the final volume of suspension is allowed")
    func boundary() throws {
        let plan = try seedingPlan(concentrationPerML: 1e5, targetCells: 1e6, finalVolumeML: 10)
        #expect(plan.mediumVolumeML == 0)
    }

    @Test func tooDilute() {
        #expect(throws: SeedingError.suspensionTooDilute(requiredML: 20, finalVolumeML: 10)) {
            try seedingPlan(concentrationPerML: 1e5, targetCells: 2e6, finalVolumeML: 10)
        }
        // Volumes to four significant digits, as a person reads them.
        #expect(SeedingError.suspensionTooDilute(requiredML: 841.4013944752504, finalVolumeML: 1).description
            == "seeding: the target needs 841.4 mL of suspension, more than the final volume 1 mL")
    }

    @Test(arguments: [0.0, -1.0, Double.nan, Double.infinity])
    func rejectsNonPositive(value: Double) {
        #expect(throws: SeedingError.self) { try seedingPlan(concentrationPerML: value, targetCells: 1, finalVolumeML: 1) }
        #expect(throws: SeedingError.self) { try seedingPlan(concentrationPerML: 1e6, targetCells: value, finalVolumeML: 1) }
        #expect(throws: SeedingError.self) { try seedingPlan(concentrationPerML: 1e6, targetCells: 1, finalVolumeML: value) }
    }
}

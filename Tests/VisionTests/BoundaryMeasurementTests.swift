import Testing
@testable import Vision

@Suite("Boundary measurement reuse")
struct BoundaryMeasurementTests {
    @Test func aMeasurementAnswersOnlyForItsOwnCentreAndRadius() {
        let m = BoundaryMeasurement(x: 10.25, y: 20.5, r: 6, radius: 5.5)
        #expect(m.radius(x: 10.25, y: 20.5, r: 6) == 5.5)
        #expect(m.radius(x: 10.25.nextUp, y: 20.5, r: 6) == nil)
        #expect(m.radius(x: 10.25, y: 20.5, r: 6.5) == nil)
        #expect(m.radius(x: 10.25, y: 21, r: 6) == nil)
    }
}

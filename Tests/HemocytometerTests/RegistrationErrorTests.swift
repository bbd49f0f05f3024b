import Foundation
import Testing
@testable import Hemocytometer

@Suite("Registration error")
struct RegistrationErrorTests {
    /// A 1920 x 1080 view at 0.9 µm per pixel, turned 2 degrees, its top-left corner at chamber
    /// (1100, 1300).
    static let truth = Homography.similarity(scale: 0.9, rotationRadians: 2 * .pi / 180, translation: Point(x: 1100, y: 1300))

    static func error(_ map: Homography) -> Double? { registrationErrorUm(map, against: truth, width: 1920, height: 1080) }

    /// The map followed by a chamber-side change (a shift, a turn about the ruled area's centre).
    static func then(_ f: @escaping (Point) -> Point) throws -> Homography {
        let image = [Point(x: 0, y: 0), Point(x: 1920, y: 0), Point(x: 1920, y: 1080), Point(x: 0, y: 1080)]
        let chamber = try image.map { f(try #require(truth.apply($0))) }
        return try #require(Homography(from: image, to: chamber))
    }

    @Test func theSameMapIsNoErrorAndAShiftIsItsLength() throws {
        #expect(try #require(Self.error(Self.truth)) < 1e-9)
        let shifted = try Self.then { Point(x: $0.x + 30, y: $0.y - 40) }
        #expect(abs(try #require(Self.error(shifted)) - 50) < 1e-6)
        // One large square down: the kind of mistake the measure is for.
        let square = try Self.then { Point(x: $0.x, y: $0.y + 1000) }
        #expect(abs(try #require(Self.error(square)) - 1000) < 1e-6)
    }

    @Test func theRulingsSymmetriesCountAsTheSameRegistration() throws {
        let side = NeubauerGeometry.ruledAreaUm
        let images: [(Point) -> Point] = [
            { Point(x: side - $0.x, y: $0.y) },            // mirrored left-right
            { Point(x: $0.x, y: side - $0.y) },            // mirrored top-bottom
            { Point(x: side - $0.y, y: $0.x) },            // a quarter turn
            { Point(x: side - $0.x, y: side - $0.y) },     // a half turn
            { Point(x: $0.y, y: $0.x) },                   // about the diagonal
        ]
        for f in images { #expect(try #require(Self.error(try Self.then(f))) < 1e-6) }
    }

    @Test func aScaleErrorShowsAwayFromTheCentre() throws {
        // 10 % too large about the view's centre: the centre agrees, the quarters do not.
        let centre = try #require(Self.truth.apply(Point(x: 960, y: 540)))
        let scaled = try Self.then { Point(x: centre.x + 1.1 * ($0.x - centre.x), y: centre.y + 1.1 * ($0.y - centre.y)) }
        let error = try #require(Self.error(scaled))
        // A quarter's centre lies 0.9 µm/px x (480, 270) px from the view's centre.
        let expected = 0.1 * 0.9 * (480.0 * 480 + 270 * 270).squareRoot()
        #expect(abs(error - expected) < 1e-6, "\(error) against \(expected)")
    }

    @Test func aMapThatSendsThePointsToInfinityHasNoError() throws {
        // The line y = 540 of the view maps to infinity.
        let degenerate = try #require(Homography(matrix: [1, 0, 0, 0, 1, 0, 0, 1, -540]))
        #expect(Self.error(degenerate) == nil)
    }
}

import Foundation
import Hemocytometer
import Imaging
import Testing
@testable import Vision

/// `gridViewInRuledArea`: a registration that puts the whole view outside the 3 x 3 mm ruled
/// area is no ruling (`viewMeetsRuledArea`).
@Suite struct ViewInRuledAreaTests {
    /// A 1920 x 1080 view at `u` µm per pixel whose top-left pixel lies at chamber (x0, y0).
    static func map(u: Double, x0: Double, y0: Double) -> [Double] { [u, 0, x0, 0, u, y0, 0, 0, 1] }

    @Test func aViewInsideOrOverlappingTheRuledAreaMeetsIt() {
        #expect(viewMeetsRuledArea(imageToChamber: Self.map(u: 1, x0: 500, y0: 500), width: 1920, height: 1080))
        // Only the view's bottom-right corner reaches the ruled area's top-left corner.
        #expect(viewMeetsRuledArea(imageToChamber: Self.map(u: 1, x0: -1900, y0: -1070), width: 1920, height: 1080))
        // A view larger than the ruled area, which lies inside it between lattice points.
        #expect(viewMeetsRuledArea(imageToChamber: Self.map(u: 10, x0: -9000, y0: -4000), width: 1920, height: 1080))
    }

    @Test func aViewWhollyOutsideOrADegenerateMapDoesNot() {
        #expect(!viewMeetsRuledArea(imageToChamber: Self.map(u: 1, x0: 3100, y0: 500), width: 1920, height: 1080))
        #expect(!viewMeetsRuledArea(imageToChamber: Self.map(u: 1, x0: -2000, y0: 500), width: 1920, height: 1080))
        #expect(!viewMeetsRuledArea(imageToChamber: Self.map(u: 1, x0: 500, y0: 3000.5), width: 1920, height: 1080))
        #expect(!viewMeetsRuledArea(imageToChamber: [0, 0, 0, 0, 0, 0, 0, 0, 0], width: 1920, height: 1080))
        #expect(!viewMeetsRuledArea(imageToChamber: Self.map(u: 1, x0: 500, y0: 500), width: 0, height: 1080))
    }

    /// A blank control whose faint lines registered at 18 times the true scale with its ruled
    /// area above the view (`Tests/Images/README.md`).
    static func run(check: Bool) throws -> PipelineResult {
        var config = PipelineConfig()
        config.gridViewInRuledArea = check
        return try Pipeline(config: config).run(try Image.decode(file: repositoryRoot + "/Tests/Images/ruled-area-off-view.jpg"))
    }

    @Test func aRegistrationOffTheViewIsNoRuling() throws {
        let checked = try Self.run(check: true)
        #expect(checked.grid == nil && checked.flags.contains("no-grid"), "\(checked.flags)")
        #expect(checked.count.concentrationPerML == nil)
        // What the fixture is for: unchecked, the registration stands, 18 times the view's
        // 1.1961 µm per pixel, and nothing is flagged.
        let unchecked = try #require(try Self.run(check: false).grid)
        #expect(unchecked.umPerPixel > 15, "\(unchecked.umPerPixel) µm per pixel")
    }

    @Test func theSettingIsAConfigurationKey() throws {
        try expectConfigurationKey("gridViewInRuledArea", off: "false", reads: false, through: \.gridViewInRuledArea,
                                   defaultText: "true", invalid: "1")
    }
}

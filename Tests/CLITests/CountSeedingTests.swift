import Foundation
import JSON
import Testing

/// `cellqa count --seed-target N --seed-volume V`: the volumes to take and to add, from the
/// image's own concentration, or the reason there are none.
@Suite struct CountSeedingTests {
    static func golden(_ name: String) -> String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Goldens/" + name).path
    }

    @Test func theVolumesFollowTheCountedConcentration() throws {
        let image = Self.golden("standard-s101-000.jpg")
        let result = try CellQABinary.run(["count", image, "--json", "--seed-target", "1e5", "--seed-volume", "10"])
        #expect(result.status == 0, "\(result.stderr)")
        let counted = try #require(CountExplainTests.array(try JSONValue.parse(result.stdout)["images"]).first)
        let concentration = try #require(counted["counts"]?["concentrationPerML"]?.number)
        let suspension = try #require(counted["seeding"]?["suspensionML"]?.number)
        let medium = try #require(counted["seeding"]?["mediumML"]?.number)
        #expect(abs(suspension * concentration - 1e5) < 1e-5 * 1e5)
        #expect(abs(suspension + medium - 10) < 1e-9)

        let table = try CellQABinary.run(["count", image, "--seed-target", "1e5", "--seed-volume", "10"])
        #expect(table.stdout.contains(String(format: "  seeding: %.4f mL suspension + %.4f mL medium", suspension, medium)))
    }

    @Test func noCellsAndTooDiluteAreSaidPlainly() throws {
        let blank = try CellQABinary.run(["count", Self.golden("blank-s104-000.jpg"), "--seed-target", "1e6", "--seed-volume", "10"])
        #expect(blank.status == 0, "\(blank.stderr)")
        #expect(blank.stdout.contains("  seeding: no cells counted, so no volume of this suspension holds the target\n"),
                "\(blank.stdout)")
        let dilute = try CellQABinary.run(["count", Self.golden("sparse-s103-000.jpg"), "--seed-target", "1e12", "--seed-volume", "1"])
        #expect(dilute.stdout.contains("  seeding: the target needs "), "\(dilute.stdout)")
        #expect(dilute.stdout.contains(" mL of suspension, more than the final volume 1 mL\n"), "\(dilute.stdout)")
        #expect(!dilute.stdout.contains("seeding: seeding:"))
    }
}

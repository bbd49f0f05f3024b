import Foundation
import JSON
import Testing

/// `cellqa count --explain X,Y` as a user sees it.
@Suite struct CountExplainTests {
    static var golden: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Goldens/sparse-s103-000.jpg").path
    }

    static func array(_ value: JSONValue?) -> [JSONValue] {
        if case .array(let items)? = value { return items }
        return []
    }

    @Test func explainTracesAFoundCellAndAnEmptyCorner() throws {
        let counted = try CellQABinary.run(["count", Self.golden, "--json"])
        #expect(counted.status == 0, "\(counted.stderr)")
        let detections = Self.array(Self.array(try JSONValue.parse(counted.stdout)["images"]).first?["detections"])
        let first = try #require(detections.first)
        let x = try #require(first["x"]?.number), y = try #require(first["y"]?.number)
        let result = try CellQABinary.run(["count", Self.golden, "--explain", "\(x),\(y)", "--explain", "0,0", "--reach", "3"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(String(format: "explain %.1f,%.1f (candidates within 3.0 px)", x, y)))
        #expect(result.stdout.contains("boundary test (verdicts)"))
        #expect(result.stdout.contains("kept\n"))
        #expect(result.stdout.contains("lost at: detector (dog)"))

        let json = try CellQABinary.run(["count", Self.golden, "--json", "--explain", "0,0"])
        let explained = Self.array(Self.array(try JSONValue.parse(json.stdout)["images"]).first?["explain"])
        #expect(explained.first?["lostAt"] == .string("detector (dog)"))
    }

    @Test func aPointJustOutsideTheImageIsAPoint() throws {
        let result = try CellQABinary.run(["count", Self.golden, "--explain", "-1.5,40"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("explain -1.5,40.0"))
        #expect(result.stderr.contains("--explain -1.5,40 lies outside the image (1920x1080)"), "\(result.stderr)")
    }

    /// A point far off the image is never near a candidate, so its trace reads "lost at:
    /// detector": the note says why.
    @Test func aPointOffTheImageIsNoted() throws {
        let result = try CellQABinary.run(["count", Self.golden, "--explain", "5000,40", "--explain", "10,10"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("--explain 5000,40 lies outside the image (1920x1080)"), "\(result.stderr)")
        #expect(!result.stderr.contains("10,10"))
    }

    @Test func aMalformedPointIsAUsageErrorNamingTheOption() throws {
        let result = try CellQABinary.run(["count", Self.golden, "--explain", "12;40"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--explain"))
        #expect(result.stderr.contains("12;40"))
    }
}

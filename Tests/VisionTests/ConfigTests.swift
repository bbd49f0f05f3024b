import Testing
import JSON
@testable import Vision

@Suite("PipelineConfig")
struct ConfigTests {
    @Test func defaultsRoundTripThroughCanonicalJSON() throws {
        let defaults = PipelineConfig()
        let parsed = try PipelineConfig.parse(Array(defaults.canonicalJSON.utf8), file: "defaults.json")
        #expect(parsed == defaults)
        #expect(parsed.configHash == defaults.configHash)
        #expect(defaults.configHash.count == 16)
        #expect(defaults.canonicalJSON.contains("\"detector\": \"dog\""))
    }

    @Test func partialFileKeepsOtherDefaultsAndChangesTheHash() throws {
        let config = try PipelineConfig.parse(Array(#"{"minRadiusPx": 6, "maxRadiusPx": 16, "detector": "threshold"}"#.utf8))
        #expect(config.minRadiusPx == 6 && config.maxRadiusPx == 16 && config.detector == .threshold)
        #expect(config.nmsIoU == PipelineConfig().nmsIoU)
        #expect(config.configHash != PipelineConfig().configHash)
    }

    @Test func hashIgnoresLayoutAndKeyOrder() throws {
        let a = try PipelineConfig.parse(Array(#"{"minScore": 5, "dilution": 2}"#.utf8))
        let b = try PipelineConfig.parse(Array("{\n  \"dilution\": 2.0,\n  \"minScore\": 5.0\n}".utf8))
        #expect(a.configHash == b.configHash)
    }

    @Test(arguments: [
        (#"{"minScroe": 5}"#, "minScroe"),
        (#"{"minScore": "high"}"#, "minScore"),
        (#"{"minScore": -1}"#, "minScore"),
        (#"{"nmsIoU": 2}"#, "nmsIoU"),
        (#"{"detector": "hough"}"#, "detector"),
        (#"{"workingScale": 1.5}"#, "workingScale"),
        (#"{"countedSquares": [[0, 3]]}"#, "countedSquares[0]"),
        (#"{"minRadiusPx": 20, "maxRadiusPx": 10}"#, "maxRadiusPx"),
    ])
    func invalidValuesNameTheKey(text: String, key: String) {
        do {
            _ = try PipelineConfig.parse(Array(text.utf8), file: "bad.json")
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.path == key, "\(error)")
            #expect(error.description.contains("bad.json"))
        }
    }

    @Test func outOfRangeMessageStatesTheRange() {
        do {
            _ = try PipelineConfig.parse(Array(#"{"nmsIoU": 2}"#.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.description.contains("0.0...1.0"), "\(error)")
        }
    }
}

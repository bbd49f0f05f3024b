import Harness
import JSON
import Testing
import Vision

/// Hostile pipeline configurations and acceptance files. The project's rule for both: an
/// unknown key is an error naming the key (a misspelt gate or parameter must never be silently
/// ignored), as are wrong types and out-of-range values.
@Suite struct ConfigAndAcceptanceTests {
    static let configFile = "configs/hostile.json"
    static let acceptanceFile = "acceptance/hostile.json"

    private func configError(_ text: String) -> String? {
        do {
            _ = try PipelineConfig.parse(Array(text.utf8), file: Self.configFile)
            return nil
        } catch {
            #expect(error.file == Self.configFile)
            return error.description
        }
    }

    private func acceptanceError(_ text: String) -> String? {
        do {
            _ = try Acceptance.parse(try JSONValue.parse(text, file: Self.acceptanceFile), file: Self.acceptanceFile)
            return nil
        } catch {
            #expect(error.file == Self.acceptanceFile)
            return error.description
        }
    }

    // MARK: pipeline configuration

    @Test func configUnknownKeyIsRejectedByName() {
        // A typo names the key meant; a key like no other says where they are all listed.
        #expect(configError("{\"minRadiusPX\": 5}")
                == "\(Self.configFile): minRadiusPX: unknown configuration key \"minRadiusPX\": did you mean \"minRadiusPx\"?")
        #expect(configError("{\"nmsIOU\": 0.3}")
                == "\(Self.configFile): nmsIOU: unknown configuration key \"nmsIOU\": did you mean \"nmsIoU\"?")
        let message = configError("{\"wavelength\": 5}")
        #expect(message == "\(Self.configFile): wavelength: unknown configuration key \"wavelength\" "
                + "(every key with its default: cellqa config --print-defaults)", "\(String(describing: message))")
    }

    @Test func configOutOfRange() {
        #expect(configError("{\"minRadiusPx\": 0}") == "\(Self.configFile): minRadiusPx: expected a number in 0.5...2000.0, got 0")
        #expect(configError("{\"glareLevel\": 256}") == "\(Self.configFile): glareLevel: expected an integer in 1...255, got 256")
        #expect(configError("{\"nmsIoU\": -0.1}") == "\(Self.configFile): nmsIoU: expected a number in 0.0...1.0, got -0.1")
        #expect(configError("{\"dilution\": 1e300}") == "\(Self.configFile): dilution: expected a number in 1e-06...1000000000.0, got 1e+300")
    }

    @Test func configWrongTypes() {
        #expect(configError("{\"detector\": 3}") == "\(Self.configFile): detector: expected a string, got 3")
        #expect(configError("{\"detector\": \"hough\"}") == "\(Self.configFile): detector: expected one of \"dog\", \"threshold\", got the string \"hough\"")
        #expect(configError("{\"workingScale\": 1.5}") == "\(Self.configFile): workingScale: expected an integer, got 1.5")
        #expect(configError("{\"gridEnabled\": \"yes\"}") == "\(Self.configFile): gridEnabled: expected true or false, got the string \"yes\"")
        #expect(configError("{\"minRadiusPx\": null}") == "\(Self.configFile): minRadiusPx: expected a number, got null")
        #expect(configError("[]") == "\(Self.configFile): (top level): expected an object, got an empty array")
    }

    @Test func configInconsistentRange() {
        #expect(configError("{\"minRadiusPx\": 20, \"maxRadiusPx\": 10}")
            == "\(Self.configFile): maxRadiusPx: expected maxRadiusPx >= minRadiusPx (minRadiusPx is 20.0), got 10.0")
    }

    @Test func configCountedSquares() {
        #expect(configError("{\"countedSquares\": [[3, 0]]}")
            == "\(Self.configFile): countedSquares[0]: expected [row, column] with row and column in 0...2, got an array")
        #expect(configError("{\"countedSquares\": []}")
            == "\(Self.configFile): countedSquares: expected at least one [row, column] square, got an empty array")
        #expect(configError("{\"countedSquares\": [[0, \"1\"]]}")
            == "\(Self.configFile): countedSquares[0][1]: expected an integer, got the string \"1\"")
    }

    @Test func configSyntaxErrorNamesTheOffset() {
        #expect(configError("{\"minRadiusPx\": 5,}")
            == "\(Self.configFile): line 1, column 19, byte 18: expected valid JSON, got '}' (json-c: unexpected character)")
    }

    @Test func configEmptyObjectIsTheDefaults() throws {
        #expect(try PipelineConfig.parse(Array("{}".utf8), file: Self.configFile) == PipelineConfig())
    }

    // MARK: acceptance files

    @Test func acceptanceUnknownKeyIsRejectedByName() {
        #expect(acceptanceError("{\"minPrecison\": 0.9}")
                == "\(Self.acceptanceFile): minPrecison: unknown key \"minPrecison\": did you mean \"minPrecision\"?")
        #expect(acceptanceError("{\"tags\": {\"dense\": {\"minRecal\": 0.5}}}")
                == "\(Self.acceptanceFile): tags.dense.minRecal: unknown key \"minRecal\": did you mean \"minRecall\"?")
        let message = acceptanceError("{\"threshold\": 0.9}")
        #expect(message?.hasPrefix("\(Self.acceptanceFile): threshold: unknown key \"threshold\" (known keys: description, tags,") == true,
                "\(String(describing: message))")
        #expect(message?.contains(" minPrecision,") == true)
        let nested = acceptanceError("{\"tags\": {\"dense\": {\"threshold\": 0.5}}}")
        #expect(nested?.hasPrefix("\(Self.acceptanceFile): tags.dense.threshold: unknown key \"threshold\" (known keys: minPrecision,") == true,
                "\(String(describing: nested))")
    }

    @Test func acceptanceOutOfRange() {
        #expect(acceptanceError("{\"minPrecision\": 1.5}") == "\(Self.acceptanceFile): minPrecision: expected a number from 0 to 1, got 1.5")
        #expect(acceptanceError("{\"maxErrored\": -1}") == "\(Self.acceptanceFile): maxErrored: expected a non-negative integer, got -1")
        #expect(acceptanceError("{\"stageBudgets\": {\"grid\": {\"medianMs\": 0}}}")
            == "\(Self.acceptanceFile): stageBudgets.grid.medianMs: expected a positive number of milliseconds, got 0")
    }

    @Test func acceptanceWrongTypes() {
        #expect(acceptanceError("{\"maxErrored\": \"0\"}") == "\(Self.acceptanceFile): maxErrored: expected an integer, got the string \"0\"")
        #expect(acceptanceError("{\"gateExpect\": 1}") == "\(Self.acceptanceFile): gateExpect: expected true or false, got 1")
        #expect(acceptanceError("{\"tags\": []}") == "\(Self.acceptanceFile): tags: expected an object, got an empty array")
        #expect(acceptanceError("{\"stageBudgets\": {\"grid\": {\"clock\": \"cpu\"}}}")
            == "\(Self.acceptanceFile): stageBudgets.grid: expected an object with \"medianMs\" and/or \"p90Ms\", got an object")
    }

    @Test func acceptanceNullDisablesAGate() throws {
        let acceptance = try Acceptance.parse(try JSONValue.parse("{\"minPrecision\": null}"), file: Self.acceptanceFile)
        #expect(acceptance.limits.minPrecision == nil)
        #expect(acceptance.limits.minRecall == Acceptance.defaultLimits.minRecall)
    }
}

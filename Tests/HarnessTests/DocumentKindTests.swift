import Foundation
import JSON
import Testing
import Vision
@testable import Harness

/// A file handed to the wrong option is named for what it is: each kind of cellqa document
/// is told by its top-level keys.
@Suite struct DocumentKindTests {
    static var repository: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }

    @Test func eachKindIsToldByItsKeys() throws {
        #expect(DocumentKind.of(try JSONValue.load(path: Self.repository + "/Goldens/baseline.json")) == .runReport)
        #expect(DocumentKind.of(try JSONValue.load(path: Self.repository + "/Goldens/acceptance.json")) == .acceptance)
        #expect(DocumentKind.of(try JSONValue.load(path: Self.repository + "/TestLabels/blank-s104-000.json")) == .label)
        #expect(DocumentKind.of(PipelineConfig().jsonValue) == .pipelineConfig)
        #expect(DocumentKind.of(try JSONValue.parse(#"{"minScore": 3}"#)) == .pipelineConfig)
        #expect(DocumentKind.of(try JSONValue.parse(#"{"minRecall": 0.9, "description": "x"}"#)) == .acceptance)
        // Keys of no kind, a bare description, or not an object at all: no guess.
        for text in [#"{"minScor": 3}"#, #"{"description": "x"}"#, "{}", "[1, 2]", "3"] {
            #expect(DocumentKind.of(try JSONValue.parse(text)) == nil, "\(text)")
        }
    }

    @Test func aMisfiledFileIsNamedWithWhereItGoes() throws {
        let baseline = Self.repository + "/Goldens/baseline.json"
        #expect(misfiledDocument(baseline, expected: [.pipelineConfig])
            == "\(baseline) is a run report (report.json), not a pipeline configuration; "
            + "give it to --baseline, or as a version to cellqa compare")
        let acceptance = Self.repository + "/Goldens/acceptance.json"
        #expect(misfiledDocument(acceptance, expected: [.runReport, .pipelineConfig])
            == "\(acceptance) is an acceptance file, not a run report (report.json) or a pipeline configuration; "
            + "give it to --acceptance")
        // The expected kind, or a file that is no JSON document: the parser's error stands.
        #expect(misfiledDocument(acceptance, expected: [.acceptance]) == nil)
        #expect(misfiledDocument(Self.repository + "/Goldens/blank-s104-000.jpg", expected: [.acceptance]) == nil)
        #expect(misfiledDocument(Self.repository + "/no/such/file.json", expected: [.acceptance]) == nil)
    }
}

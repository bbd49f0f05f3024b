import Testing
@testable import Vision

/// A rule's setting is a configuration key: `{"key": offValue}` parses to a configuration
/// that reads `expected` through `read` where the default does not, with another hash; the
/// defaults print `"key": defaultText`; and `{"key": invalid}`, when given, is refused.
func expectConfigurationKey<Value: Equatable>(_ key: String, off offValue: String, reads expected: Value,
                                              through read: (PipelineConfig) -> Value, defaultText: String,
                                              invalid: String? = nil,
                                              sourceLocation: SourceLocation = #_sourceLocation) throws {
    let off = try PipelineConfig.parse(Array("{\"\(key)\": \(offValue)}".utf8))
    #expect(read(off) == expected && read(PipelineConfig()) != expected, sourceLocation: sourceLocation)
    #expect(off.configHash != PipelineConfig().configHash, sourceLocation: sourceLocation)
    #expect(PipelineConfig().canonicalJSON.contains("\"\(key)\": \(defaultText)"), sourceLocation: sourceLocation)
    if let invalid {
        #expect(throws: (any Error).self, sourceLocation: sourceLocation) {
            try PipelineConfig.parse(Array("{\"\(key)\": \(invalid)}".utf8))
        }
    }
}

import Fixtures
import Harness
import Imaging
import JSON
import Vision

/// Fuzz targets for everything cellqa reads as JSON.
enum JSONTargets {
    /// The name given to fuzz inputs; every error must carry it.
    static let fileName = "fuzz.json"

    static func label(_ bytes: [UInt8]) {
        let label: Label
        do {
            label = try Label.parse(bytes, file: fileName)
        } catch {
            if error.errors.isEmpty { FuzzInvariant.fail("LabelErrors without any error") }
            for item in error.errors { requireNamed(item.detail) }
            return
        }
        for item in label.check(imageWidth: 64, imageHeight: 48, file: fileName) { requireNamed(item.detail) }
        // The checks that explain a label of the image turned (EXIF orientation 5 to 8).
        for item in label.check(imageWidth: 48, imageHeight: 64, file: fileName, viewerTurn: swappingViewerTurn(ofExifOrientation: 6)) {
            requireNamed(item.detail)
        }
        let text = label.jsonValue.serialized(pretty: false)
        do {
            let again = try Label.parse(Array(text.utf8), file: fileName)
            if again != label { FuzzInvariant.fail("label changed in an encode/parse round trip: \(text)") }
        } catch {
            FuzzInvariant.fail("an encoded label does not parse: \(error)\n\(text)")
        }
    }

    static func config(_ bytes: [UInt8]) {
        let config: PipelineConfig
        do {
            config = try PipelineConfig.parse(bytes, file: fileName)
        } catch {
            requireNamed(error)
            return
        }
        let text = config.canonicalJSON
        do {
            let again = try PipelineConfig.parse(Array(text.utf8), file: fileName)
            if again != config { FuzzInvariant.fail("config changed in a print/parse round trip: \(text)") }
            if again.configHash != config.configHash { FuzzInvariant.fail("config hash changed in a round trip") }
        } catch {
            FuzzInvariant.fail("the canonical JSON of a config does not parse: \(error)\n\(text)")
        }
    }

    static func acceptance(_ bytes: [UInt8]) {
        do {
            let value = try JSONValue.parse(bytes, file: fileName)
            _ = try Acceptance.parse(value, file: fileName)
        } catch {
            requireNamed(error)
        }
    }

    /// The report schema, read once from the working directory (scripts/fuzz runs from the
    /// repository root); nil elsewhere, and then only the round trip is checked.
    static let reportSchema: JSONValue? = try? JSONValue.load(path: "scripts/report.schema.json")

    static func report(_ bytes: [UInt8]) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes, file: fileName)
        } catch {
            requireNamed(error)
            if error.offset == nil && error.path.isEmpty && bytes.count < Int(Int32.max) - 1 {
                FuzzInvariant.fail("a syntax error without a byte offset: \(error)")
            }
            return
        }
        for pretty in [false, true] {
            let text = value.serialized(pretty: pretty)
            // The streaming writer against json-c's own (parsed keys never hold a NUL, where
            // the two part ways).
            if text != value.jsoncSerialized(pretty: pretty) {
                FuzzInvariant.fail("the JSON writer and json-c differ (pretty \(pretty)):\n\(text)\n\(value.jsoncSerialized(pretty: pretty))")
            }
            do {
                let again = try JSONValue.parse(Array(text.utf8), file: fileName)
                if again != value { FuzzInvariant.fail("JSON changed in a serialize/parse round trip: \(text)") }
            } catch {
                FuzzInvariant.fail("serialized JSON does not parse: \(error)\n\(text)")
            }
        }
        do {
            _ = try RunSnapshot.parse(value, file: fileName)
        } catch {
            requireNamed(error)
        }
        if let reportSchema { _ = SchemaValidator(schema: reportSchema).validate(value) }
        // The value as a schema of itself exercises $ref resolution and unknown keywords.
        _ = SchemaValidator(schema: value).validate(value)
    }

    private static func requireNamed(_ error: JSONError) {
        if error.file != fileName || !error.description.hasPrefix(fileName + ": ") {
            FuzzInvariant.fail("error does not name the file: \(error)")
        }
    }
}

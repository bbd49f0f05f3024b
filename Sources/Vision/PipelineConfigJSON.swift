import JSON
import Hemocytometer

/// One configuration key: its JSON name, where it lives in `PipelineConfig` and what it accepts.
enum ConfigKey {
    case number(String, WritableKeyPath<PipelineConfig, Double>, ClosedRange<Double>)
    case integer(String, WritableKeyPath<PipelineConfig, Int>, ClosedRange<Int>)
    case flag(String, WritableKeyPath<PipelineConfig, Bool>)
    case detector
    case sizeFrom
    case countedSquares

    var name: String {
        switch self {
        case .number(let n, _, _), .integer(let n, _, _), .flag(let n, _): return n
        case .detector: return "detector"
        case .sizeFrom: return "sizeFrom"
        case .countedSquares: return "countedSquares"
        }
    }

    /// Every key in canonical order (the order of `--print-defaults` and of the hash).
    static var all: [ConfigKey] {
        [
            .detector, .sizeFrom,
            .number("minRadiusPx", \.minRadiusPx, 0.5...2000),
            .number("maxRadiusPx", \.maxRadiusPx, 0.5...2000),
            .number("minDiameterUm", \.minDiameterUm, 0.1...10000),
            .number("maxDiameterUm", \.maxDiameterUm, 0.1...10000),
            .number("minWorkingRadiusPx", \.minWorkingRadiusPx, 0.5...100),
            .integer("workingScale", \.workingScale, 0...64),
            .integer("glareLevel", \.glareLevel, 1...255),
            .number("glareMaxRatio", \.glareMaxRatio, 0...1),
            .number("minFocus", \.minFocus, 0...1e9),
            .number("backgroundSigmaRadii", \.backgroundSigmaRadii, 0.5...100),
            .flag("robustBackground", \.robustBackground),
            .number("contrastSmoothingRadii", \.contrastSmoothingRadii, 0...10),
            .number("contrastCap", \.contrastCap, 0...10),
            .flag("gridEnabled", \.gridEnabled),
            .number("gridMinPeriodicity", \.gridMinPeriodicity, 0...1),
            .number("gridMinHalfAgreement", \.gridMinHalfAgreement, 0...1),
            .number("gridMinLineContinuity", \.gridMinLineContinuity, 0...1),
            .flag("gridPerspective", \.gridPerspective),
            .flag("gridKeystone", \.gridKeystone),
            .flag("gridResidueRetry", \.gridResidueRetry),
            .flag("gridRegisterInView", \.gridRegisterInView),
            .flag("gridEmptySideSquares", \.gridEmptySideSquares),
            .flag("gridViewInRuledArea", \.gridViewInRuledArea),
            .number("gridMinSpacingPx", \.gridMinSpacingPx, 2...100_000),
            .number("gridMaxSpacingPx", \.gridMaxSpacingPx, 2...100_000),
            .number("gridSpacingUm", \.gridSpacingUm, 1...3000),
            .number("umPerPixel", \.umPerPixel, 0...10_000),
            .number("lineRemovalLengthDiameters", \.lineRemovalLengthDiameters, 0...100),
            .flag("removeFibres", \.removeFibres),
            .flag("additiveCrossings", \.additiveCrossings),
            .integer("scaleLevels", \.scaleLevels, 2...64),
            .number("minScore", \.minScore, 0...1e6),
            .number("minContrast", \.minContrast, 0...100),
            .number("maxEdgeRatio", \.maxEdgeRatio, 1...1000),
            .flag("refineCentres", \.refineCentres),
            .flag("voteCentres", \.voteCentres),
            .number("revoteIsolationRadii", \.revoteIsolationRadii, 0...100),
            .number("minEdgeCoverage", \.minEdgeCoverage, 0...1),
            .number("minEdgeRadiusFraction", \.minEdgeRadiusFraction, 0...10),
            .flag("borderCells", \.borderCells),
            .number("maxGridAlignedEdges", \.maxGridAlignedEdges, 0...1),
            .number("lineEdgeCoverageMargin", \.lineEdgeCoverageMargin, 0...1),
            .number("edgeThresholdNoise", \.edgeThresholdNoise, 0...1000),
            .number("edgeSmoothingPx", \.edgeSmoothingPx, 0...10),
            .number("edgeThresholdContrast", \.edgeThresholdContrast, 0...100),
            .flag("splitElongated", \.splitElongated),
            .flag("detectHoles", \.detectHoles),
            .flag("holeSpots", \.holeSpots),
            .number("seedMinVotes", \.seedMinVotes, 0...1000),
            .number("coreSeedContrast", \.coreSeedContrast, 0...10),
            .number("coreSeedRimDepth", \.coreSeedRimDepth, 0...10),
            .integer("coreSeedRays", \.coreSeedRays, 1...16),
            .number("brightSpotLevel", \.brightSpotLevel, 0...100),
            .number("brightSpotRimDepth", \.brightSpotRimDepth, 0...100),
            .number("minRimDepth", \.minRimDepth, 0...100),
            .number("rimOpenNoise", \.rimOpenNoise, 0...100),
            .number("maxRimSpread", \.maxRimSpread, 0...10),
            .number("stainLevel", \.stainLevel, 0...100),
            .flag("stainCentresOnLines", \.stainCentresOnLines),
            .number("rimCentringAgreement", \.rimCentringAgreement, 0...1),
            .number("rimCentringResidual", \.rimCentringResidual, 0...10),
            .number("rimCentringMinShift", \.rimCentringMinShift, 0...10),
            .flag("rimCentringRetest", \.rimCentringRetest),
            .flag("roundRimAtMargin", \.roundRimAtMargin),
            .number("crossingLineContrast", \.crossingLineContrast, 0...100),
            .flag("crossingBrightLineCores", \.crossingBrightLineCores),
            .number("tripleCrossingMarginPx", \.tripleCrossingMarginPx, 0...100),
            .number("rulingCopyResidual", \.rulingCopyResidual, 0...10),
            .integer("rulingCopyMatches", \.rulingCopyMatches, 1...12),
            .number("rulingCopySingleResidual", \.rulingCopySingleResidual, 0...10),
            .number("rulingCopyNoiseMultiple", \.rulingCopyNoiseMultiple, 0...100),
            .number("rulingCopyNoiseStructure", \.rulingCopyNoiseStructure, 0...1),
            .number("rulingCopyMaxFlattening", \.rulingCopyMaxFlattening, 1...10),
            .flag("tripleWidthMeasured", \.tripleWidthMeasured),
            .flag("tripleCrossingBetweenStrokes", \.tripleCrossingBetweenStrokes),
            .flag("tripleCrossingAtBorder", \.tripleCrossingAtBorder),
            .number("strokeGapRadii", \.strokeGapRadii, 0...10),
            .number("unregisteredWindowRadii", \.unregisteredWindowRadii, 0...10),
            .flag("strokeGapsAtJunctions", \.strokeGapsAtJunctions),
            .number("fineStrokeGapContrast", \.fineStrokeGapContrast, 0...10),
            .number("lineShiftRatio", \.lineShiftRatio, 0...1000),
            .number("keepUnvotedCoverage", \.keepUnvotedCoverage, 0...1),
            .flag("unvotedRetest", \.unvotedRetest),
            .flag("lineSubtraction", \.lineSubtraction),
            .flag("lineSubtractedVotes", \.lineSubtractedVotes),
            .number("quietRulingEdgesDeg", \.quietRulingEdgesDeg, 0...45),
            .flag("dropLineResidue", \.dropLineResidue),
            .flag("cellsOnCrossings", \.cellsOnCrossings),
            .number("crossingRimDepth", \.crossingRimDepth, 0...10),
            .number("fineRimMaxRadiusPx", \.fineRimMaxRadiusPx, 0...1000),
            .number("fineRimCoverage", \.fineRimCoverage, 0...1),
            .integer("fineRimDarkSectors", \.fineRimDarkSectors, 0...16),
            .number("fineRimRingDepth", \.fineRimRingDepth, 0...10),
            .integer("roundRimShortfall", \.roundRimShortfall, 0...16),
            .number("stainClumpCoverage", \.stainClumpCoverage, 0...1),
            .number("candidateRadiusFloor", \.candidateRadiusFloor, 0...1),
            .number("minCircularity", \.minCircularity, 0...1),
            .number("minSolidity", \.minSolidity, 0...1),
            .number("hueMinDeg", \.hueMinDeg, 0...360),
            .number("hueMaxDeg", \.hueMaxDeg, 0...360),
            .number("minDeadSaturation", \.minDeadSaturation, 0...1),
            .number("greyscaleSaturation", \.greyscaleSaturation, 0...1),
            .number("deadDarkContrast", \.deadDarkContrast, 0...10),
            .number("refractileContrast", \.refractileContrast, 0...10),
            .number("debrisDarkContrast", \.debrisDarkContrast, 0...10),
            .number("clearRingContrast", \.clearRingContrast, 0...10),
            .number("clearRingDepth", \.clearRingDepth, 0...10),
            .number("clearRingRaggedRoundness", \.clearRingRaggedRoundness, 0...1),
            .number("clearRingRaggedLobes", \.clearRingRaggedLobes, 0...10),
            .number("refractileRimShare", \.refractileRimShare, 0...1),
            .integer("haloSectors", \.haloSectors, 0...16),
            .number("haloContrast", \.haloContrast, 0...1),
            .number("haloBlockedDarkness", \.haloBlockedDarkness, 0...1),
            .integer("haloMinOpenSectors", \.haloMinOpenSectors, 1...16),
            .integer("haloClumpOpenSectors", \.haloClumpOpenSectors, 0...16),
            .number("defocusedDiscRoundness", \.defocusedDiscRoundness, 0...1),
            .number("defocusedDiscMinRadius", \.defocusedDiscMinRadius, 0...10),
            .number("greyDiscMinRadius", \.greyDiscMinRadius, 0...10),
            .number("darkSpeckMaxRadius", \.darkSpeckMaxRadius, 0...10),
            .flag("greyDarkSpecks", \.greyDarkSpecks),
            .number("faintStainShare", \.faintStainShare, 0...1),
            .integer("faintStainMinDeadCells", \.faintStainMinDeadCells, 0...100_000),
            .number("defocusedDiscMaxLobes", \.defocusedDiscMaxLobes, 0...10),
            .number("defocusedDiscMaxEdgeWidth", \.defocusedDiscMaxEdgeWidth, 0...10),
            .number("nmsIoU", \.nmsIoU, 0...1),
            .number("nmsMinCentreDistance", \.nmsMinCentreDistance, 0...2),
            .flag("nmsCentredFirst", \.nmsCentredFirst),
            .number("nmsSpanningPairDip", \.nmsSpanningPairDip, 0...10),
            .number("madCut", \.madCut, 0...1000),
            .countedSquares,
            .number("dilution", \.dilution, PipelineConfig.dilutionRange),
            .number("overcrowdedPerSquare", \.overcrowdedPerSquare, 0...1e9),
            .number("sparsePerSquare", \.sparsePerSquare, 0...1e9),
            .number("calibrationCheckFactor", \.calibrationCheckFactor, 0...1000),
            .integer("calibrationCheckMinCells", \.calibrationCheckMinCells, 1...1_000_000),
        ]
    }
}

extension PipelineConfig {
    /// The configuration as a JSON object, keys in canonical order.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        for key in ConfigKey.all {
            switch key {
            case .number(let name, let path, _): object.set(name, .double(self[keyPath: path]))
            case .integer(let name, let path, _): object.set(name, .int(Int64(self[keyPath: path])))
            case .flag(let name, let path): object.set(name, .bool(self[keyPath: path]))
            case .detector: object.set(key.name, .string(detector.rawValue))
            case .sizeFrom: object.set(key.name, .string(sizeFrom.rawValue))
            case .countedSquares:
                object.set(key.name, .array(countedSquares.map { .array([.int(Int64($0.row)), .int(Int64($0.column))]) }))
            }
        }
        return .object(object)
    }

    /// Pretty, deterministic JSON of every parameter (what `cellqa config --print-defaults` prints).
    public var canonicalJSON: String { jsonValue.serialized(pretty: true) }

    /// FNV-1a 64-bit hash of the compact canonical JSON, 16 lowercase hex digits: equal configs
    /// (whatever their file layout) hash equal.
    public var configHash: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in jsonValue.serialized(pretty: false).utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Where every configuration key is listed with its default: what an unknown key's error
    /// points to instead of listing some 150 keys.
    public static let keyListing = "every key with its default: cellqa config --print-defaults"

    /// Reads a configuration object. Absent keys keep their defaults, so a file states only what
    /// it changes. Unknown keys, wrong types and out-of-range values are errors naming the key.
    public init(json: JSONValue, file: String? = nil) throws(JSONError) {
        self.init()
        let root = JSONCursor(json, file: file)
        let keys = ConfigKey.all
        for (name, cursor) in try root.members() {
            guard let key = keys.first(where: { $0.name == name }) else {
                throw cursor.error(message: "unknown configuration key \"\(name)\"" + unknownNameHint(
                    name, among: keys.map(\.name), listLabel: "known", longList: PipelineConfig.keyListing))
            }
            switch key {
            case .number(_, let path, let range):
                let v = try cursor.double()
                guard range.contains(v) else {
                    throw cursor.error(expected: "a number in \(range.lowerBound)...\(range.upperBound)")
                }
                self[keyPath: path] = v
            case .integer(_, let path, let range):
                let v = try cursor.int()
                guard range.contains(v) else {
                    throw cursor.error(expected: "an integer in \(range.lowerBound)...\(range.upperBound)")
                }
                self[keyPath: path] = v
            case .flag(_, let path):
                self[keyPath: path] = try cursor.bool()
            case .detector:
                let text = try cursor.string()
                guard let v = DetectorKind(rawValue: text) else {
                    throw cursor.error(expected: "one of \(DetectorKind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
                }
                detector = v
            case .sizeFrom:
                let text = try cursor.string()
                guard let v = CellSizeSource(rawValue: text) else {
                    throw cursor.error(expected: "one of \(CellSizeSource.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
                }
                sizeFrom = v
            case .countedSquares:
                var squares: [LargeSquare] = []
                for item in try cursor.array() {
                    let pair = try item.array()
                    guard pair.count == 2 else { throw item.error(expected: "[row, column] with row and column in 0...2") }
                    let row = try pair[0].int(), column = try pair[1].int()
                    guard (0...2).contains(row), (0...2).contains(column) else {
                        throw item.error(expected: "[row, column] with row and column in 0...2")
                    }
                    squares.append(LargeSquare(row: row, column: column))
                }
                guard !squares.isEmpty else { throw cursor.error(expected: "at least one [row, column] square") }
                countedSquares = squares
            }
        }
        try checkConsistency(root)
    }

    /// Cross-key rules (min <= max), and values a range cannot say.
    private func checkConsistency(_ root: JSONCursor) throws(JSONError) {
        let pairs: [(String, String, Double, Double)] = [
            ("minRadiusPx", "maxRadiusPx", minRadiusPx, maxRadiusPx),
            ("minDiameterUm", "maxDiameterUm", minDiameterUm, maxDiameterUm),
            ("gridMinSpacingPx", "gridMaxSpacingPx", gridMinSpacingPx, gridMaxSpacingPx),
            ("hueMinDeg", "hueMaxDeg", hueMinDeg, hueMaxDeg),
        ]
        for (lo, hi, a, b) in pairs where a > b {
            throw JSONError(file: root.file, path: hi, expected: "\(hi) >= \(lo) (\(lo) is \(a))",
                            actual: JSONValue.double(b).briefDescription)
        }
        // A factor is a ratio outside the range: below 1 it would reject cells inside it.
        if calibrationCheckFactor > 0 && calibrationCheckFactor < 1 {
            throw JSONError(file: root.file, path: "calibrationCheckFactor", expected: "0 (off) or a factor of at least 1",
                            actual: JSONValue.double(calibrationCheckFactor).briefDescription)
        }
    }

    /// Parses configuration JSON text.
    public static func parse(_ bytes: [UInt8], file: String? = nil) throws(JSONError) -> PipelineConfig {
        try PipelineConfig(json: try JSONValue.parse(bytes, file: file), file: file)
    }

    /// Loads a configuration file.
    public static func load(path: String) throws(JSONError) -> PipelineConfig {
        try PipelineConfig(json: try JSONValue.load(path: path), file: path)
    }
}

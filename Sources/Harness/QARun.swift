import Foundation
import Fixtures
import JSON
import Vision

/// Everything `cellqa run` needs to know, already parsed.
public struct RunRequest: Sendable {
    public var datasetRoot: String
    public var labelsRoot: String?
    /// Glob on relative paths (`Dataset.filtered(glob:)`).
    public var filter: String?
    public var tag: String?
    public var config: PipelineConfig
    public var acceptance: Acceptance
    /// Identity of the acceptance file (see `acceptanceFileHash`).
    public var acceptanceHash: String
    public var settings: RunSettings
    public var outlierCut: Double
    public var toolVersion: String

    public init(datasetRoot: String, labelsRoot: String?, filter: String? = nil, tag: String? = nil,
                config: PipelineConfig = PipelineConfig(), acceptance: Acceptance = Acceptance(),
                acceptanceHash: String = "defaults", settings: RunSettings = RunSettings(), outlierCut: Double = 3.5,
                toolVersion: String) {
        self.datasetRoot = datasetRoot
        self.labelsRoot = labelsRoot
        self.filter = filter
        self.tag = tag
        self.config = config
        self.acceptance = acceptance
        self.acceptanceHash = acceptanceHash
        self.settings = settings
        self.outlierCut = outlierCut
        self.toolVersion = toolVersion
    }
}

/// A problem with the run's inputs that stops it before any fixture runs (exit code 2).
public struct RunInputError: Error, Sendable, CustomStringConvertible {
    /// `cellqa run`'s exit status for usage and input errors.
    public static let exitCode: Int32 = 2
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The selected fixtures of a dataset, ready to run, with the dataset's identity.
public struct PreparedDataset: Sendable {
    public var root: String
    public var labelsRoot: String?
    public var fixtures: [RunFixture]
    /// Content hash of the selection ("unreadable" when a file could not be read).
    public var contentHash: String
    public var scanSeconds: Double
    public var scanCPUSeconds: Double
}

/// Scans the dataset and selects the fixtures of `request` (filter, tag).
/// - Throws: `RunInputError` when the dataset root or labels root cannot be read, the glob
///   is malformed, or no fixture is selected.
public func prepareDataset(_ request: RunRequest) throws(RunInputError) -> PreparedDataset {
    let scanStart = StageClock.wall()
    let scanCPUStart = StageClock.threadCPU()
    var glob: GlobPattern?
    if let filter = request.filter {
        do {
            glob = try GlobPattern(filter)
        } catch {
            throw RunInputError("--filter: \(error.description)")
        }
    }
    var dataset: Dataset
    do {
        dataset = try Dataset.scan(root: request.datasetRoot, labelsRoot: request.labelsRoot)
    } catch {
        throw RunInputError("cannot read the dataset: \(error.description)")
    }
    if let glob { dataset = dataset.filtered(glob: glob) }
    if let tag = request.tag { dataset = dataset.filtered(tag: tag) }
    let fixtures = runFixtures(of: dataset, glob: glob, tagFiltered: request.tag != nil)
    // An empty selection would pass every gate vacuously; a typo in --tag must not turn CI green.
    guard !fixtures.isEmpty else {
        var selection = ""
        if let filter = request.filter { selection += " matching --filter \"\(filter)\"" }
        if let tag = request.tag { selection += " with tag \"\(tag)\"" }
        throw RunInputError("no fixtures\(selection) in \(dataset.root)"
                            + (dataset.labelsRoot.map { " (labels: \($0))" } ?? ""))
    }
    let contentHash: String
    do {
        contentHash = try dataset.contentHash()
    } catch {
        // An unreadable file also shows up as an errored fixture; the hash then says so.
        contentHash = "unreadable"
    }
    return PreparedDataset(root: dataset.root, labelsRoot: dataset.labelsRoot, fixtures: fixtures, contentHash: contentHash,
                           scanSeconds: StageClock.wall() - scanStart, scanCPUSeconds: StageClock.threadCPU() - scanCPUStart)
}

/// Scans the dataset, selects fixtures, runs them and builds the report.
/// - Throws: `RunInputError` when the dataset root or labels root cannot be read, the glob
///   is malformed, or no fixture is selected. Per-fixture problems never throw: they become errored fixtures.
/// - Parameter cancellation: stops the run early (`runFixtures`); the report then holds the
///   fixtures that finished and is marked incomplete.
public func performRun(_ request: RunRequest, progress: (any ProgressSink)? = nil,
                       cancellation: RunCancellation? = nil) throws(RunInputError) -> RunReport {
    let startTime = isoTimestamp(Date())
    let scanStart = StageClock.wall()
    let prepared = try prepareDataset(request)
    let result = runFixtures(prepared.fixtures, pipeline: Pipeline(config: request.config), settings: request.settings,
                             progress: progress, cancellation: cancellation)
    var report = makeReport(request, config: request.config, prepared: prepared, result: result, startTime: startTime)
    report.durationSeconds = StageClock.wall() - scanStart
    return report
}

/// The report of `result`, a run of `config` over `prepared` with the rest of `request`.
public func makeReport(_ request: RunRequest, config: PipelineConfig, prepared: PreparedDataset, result: RunResult,
                       startTime: String) -> RunReport {
    let provenance = RunProvenance(
        toolVersion: request.toolVersion, configHash: config.configHash, acceptanceHash: request.acceptanceHash,
        datasetRoot: prepared.root, labelsRoot: prepared.labelsRoot, datasetHash: prepared.contentHash, filter: request.filter,
        tag: request.tag, startTime: startTime, machine: MachineFacts.current(),
        workingDirectory: ([prepared.root] + [prepared.labelsRoot].compactMap { $0 }).allSatisfy { $0.hasPrefix("/") }
            ? nil : FileManager.default.currentDirectoryPath)
    return RunReport(run: result, acceptance: request.acceptance, provenance: provenance,
                     outlierCut: request.outlierCut, scanSeconds: prepared.scanSeconds,
                     scanCPUSeconds: prepared.scanCPUSeconds)
}

/// The run's fixture list: every dataset fixture, plus one errored entry per dataset problem
/// that concerns a file of the selection (duplicates, unreadable files, bad `image`
/// references, symlink loops), ordered byte-wise by path. Labels without an image are
/// already fixtures (they error when run). With a tag filter, problems are left out: a file
/// that cannot be read has no known tags.
func runFixtures(of dataset: Dataset, glob: GlobPattern?, tagFiltered: Bool) -> [RunFixture] {
    var list: [RunFixture] = dataset.fixtures.map { f in
        RunFixture(id: f.id, path: f.imageRelativePath ?? f.labelRelativePath ?? f.id, imagePath: f.imagePath,
                   labelPath: f.labelPath, group: f.relativeDirectory)
    }
    if !tagFiltered {
        for problem in dataset.problems where problem.kind != .labelWithoutImage {
            let relative = relativePath(problem.path, roots: [dataset.root, dataset.labelsRoot].compactMap { $0 })
            if let glob, !glob.matches(relative) { continue }
            let group = (relative as NSString).deletingLastPathComponent
            list.append(RunFixture(id: relative, path: relative, imagePath: nil, labelPath: nil, group: group,
                                   problem: problem.description))
        }
    }
    return list.enumerated().sorted { a, b in
        let (x, y) = (Array(a.element.path.utf8), Array(b.element.path.utf8))
        return x == y ? a.offset < b.offset : x.lexicographicallyPrecedes(y)
    }.map(\.element)
}

/// `path` relative to the first root that contains it, else `path` unchanged.
func relativePath(_ path: String, roots: [String]) -> String {
    for root in roots {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        if path.hasPrefix(prefix) { return String(path.dropFirst(prefix.count)) }
    }
    return path
}

/// FNV-1a 64 (hex) of the acceptance file's bytes, so a report names the exact gates it used.
public func acceptanceFileHash(path: String) -> String {
    guard let data = FileManager.default.contents(atPath: path) else { return "unreadable" }
    var hasher = FNV1a64()
    hasher.update(data)
    return hasher.hexDigest
}

/// "2026-11-22T03:04:05Z".
public func isoTimestamp(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    formatter.timeZone = TimeZone(identifier: "UTC")
    return formatter.string(from: date)
}

import Harness

/// Why a command's output directory `out` should not be used, or nil: inside the dataset
/// roots the command reads (unless `allowInDataset`: the files would sit among the inputs and
/// could be taken for them), or inside a cellqa run's report directory (the next
/// `cellqa run --out` there would refuse to replace a directory holding files its reports do
/// not). `replacesReports` is true for `cellqa run`, whose own `--out` may be a report
/// directory (it replaces it) but not lie inside one.
func outputRefusal(_ out: String, datasetRoots: [String], allowInDataset: Bool, replacesReports: Bool = false) -> String? {
    if !allowInDataset {
        for root in datasetRoots where ReportDirectory.isWithin(out, root) {
            return "--out \(out) is inside the dataset root \(root). Choose another --out, or pass --allow-out-in-dataset"
        }
    }
    if let report = ReportDirectory.enclosingRunReport(of: out, includingItself: !replacesReports) {
        let place = ReportDirectory.resolveExisting(out) == report ? "is" : "is inside \(report),"
        return "--out \(out) \(place) the report directory of a cellqa run; the next `cellqa run --out` "
            + "there would refuse to replace it, as it would hold files the reports do not. Choose another --out"
    }
    return nil
}

/// Creates `directory` and its parents; nil when done, else the message naming it and why.
func createDirectoryProblem(_ directory: String) -> String? {
    createDirectories(directory).map { "\(directory): cannot create the directory (\($0))" }
}

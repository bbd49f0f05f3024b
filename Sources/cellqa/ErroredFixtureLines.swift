/// The console's lines for a run's or sweep's errored fixtures: each message (its first line,
/// which names the file) up to `limit`, then how many more `reports` lists.
func erroredFixtureLines(_ messages: [String], reports: String, limit: Int = 10) -> [String] {
    var lines = messages.prefix(limit).map { "errored: " + ($0.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? "") }
    if messages.count > limit { lines.append("… and \(messages.count - limit) more errored fixtures (\(reports))") }
    return lines
}

/// The CI rule of `cellqa run --record`: a CI job must never quietly replace the reference it
/// is checked against. With the `CI` environment variable set (to anything but an empty
/// string), recording needs `--force`.
/// - Returns: the refusal (exit code 2), or nil when recording may go ahead.
public func recordRefusal(force: Bool, environment: [String: String], baselinePath: String) -> RunInputError? {
    guard !force, let ci = environment["CI"], !ci.isEmpty else { return nil }
    return RunInputError("--record refuses to overwrite \(baselinePath) under CI (CI=\(ci)); pass --force to record anyway")
}

import Harness

/// The message for a JSON input at `path` that failed to load: the parser's own, or, when the
/// file is another kind of cellqa document (a report given as a config), which kind it is and
/// where it goes.
func inputMessage(_ error: any Error, path: String, expected: DocumentKind...) -> String {
    misfiledDocument(path, expected: expected) ?? "\(error)"
}

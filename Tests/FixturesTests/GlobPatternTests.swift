import Fixtures
import Testing

@Suite struct GlobPatternTests {
    @Test(arguments: [
        ("*.png", "a.png", true), ("*.png", "sub/a.png", false), ("sub/*", "sub/a.png", true),
        ("sub/*", "sub/x/a.png", false), ("**", "sub/x/a.png", true), ("**/a.png", "a.png", true),
        ("**/a.png", "x/y/a.png", true), ("**/a.png", "x/ya.png", false), ("sub/**/a.png", "sub/a.png", true),
        ("sub/**/a.png", "sub/p/q/a.png", true), ("sub/**", "sub/p/q", true), ("sub/**", "subway/p", false),
        ("a**b", "a/x/b", true), ("?.png", "a.png", true), ("?.png", "ab.png", false), ("?", "/", false),
        ("g[0-9][0-9]", "g07", true), ("g[0-9]", "ga", false), ("g[!0-9]", "ga", true), ("g[^0-9]", "g1", false),
        ("[]a]", "]", true), ("x[/]y", "x/y", false), ("\\*", "*", true), ("\\*", "a", false),
        ("é*", "éclair", true), ("*", "", true), ("", "", true), ("", "a", false), ("a*b*c", "aXbYbZc", true),
        ("a*b*c", "aXbYbZ", false), ("*/golden0?", "set/golden01", true),
    ])
    func matching(pattern: String, path: String, expected: Bool) throws {
        #expect(try GlobPattern(pattern).matches(path) == expected)
    }

    @Test func rejectsMalformedPatterns() {
        let unclosed = #expect(throws: GlobPatternError.self) { try GlobPattern("a[bc") }
        #expect(unclosed?.description == "glob pattern \"a[bc\": '[' at position 1 is not closed by ']'")
        #expect(throws: GlobPatternError.self) { try GlobPattern("ab\\") }
        #expect(throws: GlobPatternError.self) { try GlobPattern("[z-a]") }
    }

    @Test func longPathsStayFast() throws {
        let path = String(repeating: "a/", count: 200) + "x.png"
        let pattern = try GlobPattern("**/*a*a*a*a*b")
        #expect(!pattern.matches(path))
    }
}

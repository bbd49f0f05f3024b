/// A shell-style pattern over `/`-separated relative paths:
/// - `*` any run of characters within one path component,
/// - `**` any run including `/`; `**/` matches zero or more whole directories
///   (`**/a.png` matches `a.png` and `x/y/a.png`),
/// - `?` one character other than `/`,
/// - `[abc]`, `[a-z]`, `[!a-z]` / `[^a-z]` one character in / not in the set (never `/`),
/// - `\x` the character `x` literally.
/// Matching is on Unicode scalars and case-sensitive; the whole path must match.
public struct GlobPattern: Sendable, Equatable, CustomStringConvertible {
    private enum Token: Sendable, Equatable {
        case literal(Unicode.Scalar)
        case anyOne
        case componentRun
        case anything
        case directories
        case set(ranges: [ClosedRange<UInt32>], negated: Bool)
    }

    public let description: String
    private let tokens: [Token]

    /// Compiles `pattern`; throws for an unterminated `[` or a trailing `\`.
    public init(_ pattern: String) throws(GlobPatternError) {
        description = pattern
        let scalars = Array(pattern.unicodeScalars)
        var tokens: [Token] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "*":
                if index + 1 < scalars.count, scalars[index + 1] == "*" {
                    let atComponentStart = index == 0 || scalars[index - 1] == "/"
                    if atComponentStart, index + 2 < scalars.count, scalars[index + 2] == "/" {
                        tokens.append(.directories)
                        index += 3
                    } else {
                        tokens.append(.anything)
                        index += 2
                    }
                } else {
                    tokens.append(.componentRun)
                    index += 1
                }
            case "?":
                tokens.append(.anyOne)
                index += 1
            case "\\":
                guard index + 1 < scalars.count else {
                    throw GlobPatternError(pattern: pattern, message: "ends with an unescaped backslash")
                }
                tokens.append(.literal(scalars[index + 1]))
                index += 2
            case "[":
                var cursor = index + 1
                var negated = false
                if cursor < scalars.count, scalars[cursor] == "!" || scalars[cursor] == "^" {
                    negated = true
                    cursor += 1
                }
                var ranges: [ClosedRange<UInt32>] = []
                var first = true
                while cursor < scalars.count, scalars[cursor] != "]" || first {
                    first = false
                    var low = scalars[cursor]
                    if low == "\\", cursor + 1 < scalars.count {
                        cursor += 1
                        low = scalars[cursor]
                    }
                    if cursor + 2 < scalars.count, scalars[cursor + 1] == "-", scalars[cursor + 2] != "]" {
                        let high = scalars[cursor + 2]
                        guard low.value <= high.value else {
                            throw GlobPatternError(pattern: pattern, message: "range \(low)-\(high) is reversed")
                        }
                        ranges.append(low.value...high.value)
                        cursor += 3
                    } else {
                        ranges.append(low.value...low.value)
                        cursor += 1
                    }
                }
                guard cursor < scalars.count else {
                    throw GlobPatternError(pattern: pattern, message: "'[' at position \(index) is not closed by ']'")
                }
                tokens.append(.set(ranges: ranges, negated: negated))
                index = cursor + 1
            default:
                tokens.append(.literal(scalar))
                index += 1
            }
        }
        self.tokens = tokens
    }

    /// Whether the whole of `path` matches.
    public func matches(_ path: String) -> Bool {
        let text = Array(path.unicodeScalars)
        let width = text.count + 1
        // matched[i * width + j]: tokens[i...] match text[j...]. Filled from the end so each
        // cell only reads cells already computed.
        var matched = [Bool](repeating: false, count: (tokens.count + 1) * width)
        matched[tokens.count * width + text.count] = true
        for i in stride(from: tokens.count - 1, through: 0, by: -1) {
            for j in stride(from: text.count, through: 0, by: -1) {
                let next = matched[(i + 1) * width + j]
                let hasChar = j < text.count
                var result = false
                switch tokens[i] {
                case .literal(let scalar):
                    result = hasChar && text[j] == scalar && matched[(i + 1) * width + j + 1]
                case .anyOne:
                    result = hasChar && text[j] != "/" && matched[(i + 1) * width + j + 1]
                case .set(let ranges, let negated):
                    if hasChar, text[j] != "/" {
                        let inSet = ranges.contains { $0.contains(text[j].value) }
                        result = inSet != negated && matched[(i + 1) * width + j + 1]
                    }
                case .componentRun:
                    result = next || (hasChar && text[j] != "/" && matched[i * width + j + 1])
                case .anything:
                    result = next || (hasChar && matched[i * width + j + 1])
                case .directories:
                    result = next
                    if !result, let slash = text[j...].firstIndex(of: "/") {
                        result = matched[i * width + slash + 1]
                    }
                }
                matched[i * width + j] = result
            }
        }
        return matched[0]
    }

    public static func == (lhs: GlobPattern, rhs: GlobPattern) -> Bool { lhs.description == rhs.description }
}

/// A glob pattern that cannot be compiled.
public struct GlobPatternError: Error, Sendable, Equatable, CustomStringConvertible {
    public var pattern: String
    public var message: String
    public var description: String { "glob pattern \"\(pattern)\": \(message)" }
}

import Foundation

/// Text forms of numbers for people (Markdown, JUnit messages, console).
enum Show {
    /// "0.9123" style with `digits` decimals, "n/a" for nil or non-finite.
    static func fixed(_ x: Double?, _ digits: Int = 4) -> String {
        guard let x, x.isFinite else { return "n/a" }
        return String(format: "%.\(digits)f", x)
    }
    /// "12.3%" from a fraction.
    static func percent(_ x: Double?, _ digits: Int = 1) -> String {
        guard let x, x.isFinite else { return "n/a" }
        return String(format: "%.\(digits)f%%", x * 100)
    }
    /// Milliseconds with precision that suits the size.
    static func ms(_ x: Double?) -> String {
        guard let x, x.isFinite else { return "n/a" }
        return x >= 100 ? String(format: "%.0f", x) : x >= 10 ? String(format: "%.1f", x) : String(format: "%.2f", x)
    }
    /// Seconds with three decimals (JUnit's `time`).
    static func seconds(_ x: Double) -> String { String(format: "%.3f", x.isFinite ? x : 0) }
    static func bytes(_ n: Int) -> String {
        let mb = Double(n) / 1_048_576
        return mb >= 1024 ? String(format: "%.2f GiB", mb / 1024) : String(format: "%.1f MiB", mb)
    }
}

extension Show {
    /// "+0.0123" / "-0.0123" (4 decimals), "n/a" for nil.
    static func signed(_ x: Double?, _ digits: Int = 4) -> String {
        guard let x, x.isFinite else { return "n/a" }
        return (x >= 0 ? "+" : "") + String(format: "%.\(digits)f", x)
    }
    /// "+12.3%" from a fraction.
    static func signedPercent(_ x: Double?) -> String {
        guard let x, x.isFinite else { return "n/a" }
        return (x >= 0 ? "+" : "") + String(format: "%.1f%%", x * 100)
    }
    /// "0.0123", "<1e-4".
    static func pValue(_ p: Double?) -> String {
        guard let p, p.isFinite else { return "n/a" }
        return p < 1e-4 ? "<1e-4" : String(format: "%.4f", p)
    }
}

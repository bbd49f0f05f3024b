/// Builds JSON paths in the form error messages use: `cells[17].r`, `grid.corners[2][0]`,
/// `extra["odd key"]`. The top level is the empty path.
public enum JSONPath {
    /// `path` followed by member `key`; keys that are not simple identifiers are quoted.
    public static func appending(_ path: String, key: String) -> String {
        if isIdentifier(key) { return path.isEmpty ? key : "\(path).\(key)" }
        var quoted = "\""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            default:
                if scalar.value < 0x20 {
                    quoted += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16)
                } else {
                    quoted.unicodeScalars.append(scalar)
                }
            }
        }
        return "\(path)[\(quoted)\"]"
    }

    /// `path` followed by array element `index`.
    public static func appending(_ path: String, index: Int) -> String { "\(path)[\(index)]" }

    private static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(0x30...0x39).contains(first) else { return false }
        return key.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x5F
        }
    }
}

/// The known name a misspelt one most likely meant, for "did you mean" in the errors that name
/// an unknown key: the one at the smallest edit distance (insertions, deletions,
/// substitutions and swaps of two neighbouring characters, letter case ignored), when that
/// distance is small for the name's length (at most 1 up to 4 characters, then a third of
/// the length, at most 3). Nil when nothing is that close, or two names are equally close.
///
/// Why: a configuration has over a hundred keys, and a key is most often unknown through a
/// typo (`minRadiusPX`); a list of every key buries the one meant.
public func nearestName(to name: String, among known: [String]) -> String? {
    let target = Array(name.lowercased())
    let limit = target.count <= 4 ? 1 : min(3, target.count / 3)
    var best: (name: String, distance: Int)?
    var tied = false
    for candidate in known {
        let d = editDistance(target, Array(candidate.lowercased()), limit: limit)
        guard d <= limit else { continue }
        if best == nil || d < best!.distance {
            best = (candidate, d)
            tied = false
        } else if d == best!.distance {
            tied = true
        }
    }
    return tied ? nil : best?.name
}

/// Optimal string alignment distance between `a` and `b`; any value above `limit` is
/// reported as `limit + 1` (the rows stop early once every entry exceeds it).
func editDistance(_ a: [Character], _ b: [Character], limit: Int) -> Int {
    if abs(a.count - b.count) > limit { return limit + 1 }
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var previous2 = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        var rowMin = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, previous2[j - 2] + 1) }
            current[j] = d
            rowMin = min(rowMin, d)
        }
        if rowMin > limit { return limit + 1 }
        (previous2, previous, current) = (previous, current, previous2)
    }
    return min(previous[b.count], limit + 1)
}

/// What an unknown-key error appends to `unknown key "NAME"`: `: did you mean "X"?` when one
/// known name is close (`nearestName`), otherwise ` (LABEL: a, b, ...)`, every known name, or,
/// for more names than a message can show (over 20) when `longList` says where they are
/// listed, ` (LONGLIST)`.
public func unknownNameHint(_ name: String, among known: [String], listLabel: String = "known keys",
                            longList: String? = nil) -> String {
    if let near = nearestName(to: name, among: known) { return ": did you mean \"\(near)\"?" }
    if let longList, known.count > 20 { return " (\(longList))" }
    return " (\(listLabel): \(known.joined(separator: ", ")))"
}

import Hemocytometer
import Testing
@testable import Harness

@Suite("Matching")
struct MatchingTests {
    func p(_ x: Double, _ y: Double) -> Point { Point(x: x, y: y) }
    func t(_ x: Double, _ y: Double, _ r: Double? = 10) -> MatchTarget { MatchTarget(x: x, y: y, r: r) }

    @Test func emptySides() {
        let none = matchCentres(predicted: [], labelled: [])
        #expect(none.pairs.isEmpty && none.unmatchedPredictions.isEmpty && none.unmatchedLabels.isEmpty)
        let onlyPredictions = matchCentres(predicted: [p(1, 1), p(2, 2)], labelled: [])
        #expect(onlyPredictions.falsePositives == 2 && onlyPredictions.truePositives == 0)
        let onlyLabels = matchCentres(predicted: [], labelled: [t(1, 1), t(5, 5), t(9, 9)])
        #expect(onlyLabels.falseNegatives == 3 && onlyLabels.unmatchedLabels == [0, 1, 2])
    }

    @Test func radiusRuleIsInclusiveAndFallsBackTo5px() {
        // r = 10 -> allowed 5 px: exactly 5 matches, 5.001 does not.
        let m1 = matchCentres(predicted: [p(5, 0)], labelled: [t(0, 0, 10)])
        #expect(m1.truePositives == 1)
        let m2 = matchCentres(predicted: [p(5.001, 0)], labelled: [t(0, 0, 10)])
        #expect(m2.truePositives == 0)
        // No r: 5 px.
        #expect(matchCentres(predicted: [p(3, 4)], labelled: [t(0, 0, nil)]).truePositives == 1)
        #expect(matchCentres(predicted: [p(3, 4.1)], labelled: [t(0, 0, nil)]).truePositives == 0)
        // r = 20 -> 10 px.
        #expect(matchCentres(predicted: [p(6, 8)], labelled: [t(0, 0, 20)]).truePositives == 1)
        // Configurable rules.
        #expect(matchCentres(predicted: [p(6, 8)], labelled: [t(0, 0, 10)],
                             rule: .radiusFactor(factor: 1.0, fallbackPixels: 5)).truePositives == 1)
        #expect(matchCentres(predicted: [p(6, 8)], labelled: [t(0, 0, 100)],
                             rule: .fixedPixels(9.9)).truePositives == 0)
        #expect(matchCentres(predicted: [p(6, 8)], labelled: [t(0, 0, 1)],
                             rule: .fixedPixels(10)).truePositives == 1)
    }

    @Test func tiesPreferLowerIndices() {
        // Two predictions equidistant from one label: the lower prediction index wins.
        let a = matchCentres(predicted: [p(-2, 0), p(2, 0)], labelled: [t(0, 0)])
        #expect(a.pairs == [MatchedPair(prediction: 0, label: 0, distance: 2)])
        #expect(a.unmatchedPredictions == [1])
        // One prediction equidistant from two labels: the lower label index wins.
        let b = matchCentres(predicted: [p(0, 0)], labelled: [t(3, 0), t(-3, 0)])
        #expect(b.pairs.map(\.label) == [0])
        #expect(b.unmatchedLabels == [1])
        // Same inputs, same answer, every time.
        #expect(matchCentres(predicted: [p(0, 0)], labelled: [t(3, 0), t(-3, 0)]) == b)
    }

    @Test func predictionBetweenTwoLabelsDoesNotSteal() {
        // Labels at x=0 and x=8 (allowed 5 px). Prediction A at x=4 is equally near both; B at
        // x=7.5 reaches only the right label. Giving A the right label would leave B unmatched:
        // the optimum pairs A-left and B-right.
        let m = matchCentres(predicted: [p(4, 0), p(7.5, 0)], labelled: [t(0, 0), t(8, 0)])
        #expect(m.truePositives == 2)
        #expect(m.pairs == [MatchedPair(prediction: 0, label: 0, distance: 4),
                            MatchedPair(prediction: 1, label: 1, distance: 0.5)])
    }

    @Test func maximumCardinalityBeforeDistance() {
        // Prediction 0 is very close to label 1; pairing them would leave label 0 and
        // prediction 1 unmatched. Cardinality first: two longer pairs win.
        let m = matchCentres(predicted: [p(4.9, 0), p(9.5, 0)], labelled: [t(0, 0), t(5, 0)])
        #expect(m.truePositives == 2)
        #expect(m.pairs.map(\.label) == [0, 1])
    }

    @Test func minimumTotalDistanceAmongMaximumMatchings() {
        // Two labels, two predictions, both pairings allowed: (0-0, 1-1) costs 1 + 1,
        // (0-1, 1-0) costs 3 + 3. The cheaper must win.
        let m = matchCentres(predicted: [p(1, 0), p(3, 0)], labelled: [t(0, 0), t(4, 0)])
        #expect(m.pairs.map(\.label) == [0, 1])
        #expect(abs(m.totalDistance - 2) < 1e-12)
        // The skip case: the only label is closer to the second prediction.
        let s = matchCentres(predicted: [p(4, 0), p(1, 0)], labelled: [t(0, 0)])
        #expect(s.pairs == [MatchedPair(prediction: 1, label: 0, distance: 1)])
    }

    @Test func nonFiniteCoordinatesNeverMatch() {
        let m = matchCentres(predicted: [p(.nan, 0), p(0, .infinity), p(0, 0)], labelled: [t(0, 0), t(.nan, 1)])
        #expect(m.pairs == [MatchedPair(prediction: 2, label: 0, distance: 0)])
        #expect(m.unmatchedPredictions == [0, 1] && m.unmatchedLabels == [1])
        let huge = matchCentres(predicted: [p(1e300, -1e300), p(1, 1)], labelled: [t(1e300, -1e300), t(1, 1)])
        #expect(huge.truePositives == 2)
    }

    @Test func agreesWithExhaustiveSearchOnRandomSmallCases() {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<300 {
            let np = Int(rng.next() % 7), nl = Int(rng.next() % 7)
            let preds = (0..<np).map { _ in p(Double(rng.next() % 200) / 10, Double(rng.next() % 200) / 10) }
            let labels = (0..<nl).map { _ in t(Double(rng.next() % 200) / 10, Double(rng.next() % 200) / 10,
                                                Double(rng.next() % 120) / 10 + 2) }
            let m = matchCentres(predicted: preds, labelled: labels)
            let best = exhaustiveBest(preds, labels)
            #expect(m.truePositives == best.count)
            #expect(abs(m.totalDistance - best.cost) < 1e-4)
            // Every pair is allowed, and indices are used once.
            for pair in m.pairs {
                #expect(pair.distance <= MatchRule.standard.allowedDistance(labelRadius: labels[pair.label].r))
            }
            #expect(Set(m.pairs.map(\.label)).count == m.pairs.count)
            #expect(m.truePositives + m.falsePositives == np && m.truePositives + m.falseNegatives == nl)
        }
    }

    @Test func bucketsHandleNegativeCoordinatesAndHugeRadii() {
        // Most labels are small (bucket size follows the median), one is enormous: its search
        // falls back to scanning every point. Coordinates straddle zero.
        var rng = SplitMix64(seed: 99)
        for _ in 0..<100 {
            let preds = (0..<6).map { _ in p(Double(rng.nextIndex(below: 4000)) / 100 - 20, Double(rng.nextIndex(below: 4000)) / 100 - 20) }
            var labels = (0..<5).map { _ in t(Double(rng.nextIndex(below: 4000)) / 100 - 20, Double(rng.nextIndex(below: 4000)) / 100 - 20, 2) }
            labels.append(t(-15, 12, 500))
            let m = matchCentres(predicted: preds, labelled: labels)
            let best = exhaustiveBest(preds, labels)
            #expect(m.truePositives == best.count)
            #expect(abs(m.totalDistance - best.cost) < 1e-4)
        }
    }

    @Test func bothExactSolversAgreeOnRandomGraphs() {
        // The row-by-row solver (used) and the successive-shortest-path solver (fallback for
        // huge costs) on random sparse graphs with many equal costs, against exhaustive search.
        var rng = SplitMix64(seed: 2024)
        for _ in 0..<300 {
            let nL = 1 + rng.nextIndex(below: 6), nR = 1 + rng.nextIndex(below: 6)
            var edges: [(Int, Int, Int64)] = []
            for u in 0..<nL { for v in 0..<nR where rng.nextIndex(below: 3) == 0 { edges.append((u, v, Int64(rng.nextIndex(below: 4)))) } }
            var rows = [[(column: Int, cost: Int64)]](repeating: [], count: nL)
            var ssp = AssignmentSolver(leftCount: nL, rightCount: nR)
            for (u, v, c) in edges {
                rows[u].append((v, c))
                ssp.addEdge(left: u, right: v, cost: c)
            }
            func score(_ a: [Int]) -> (Int, Int64) {
                var n = 0, cost: Int64 = 0
                for (u, v) in a.enumerated() where v >= 0 {
                    n += 1
                    cost += edges.first { $0.0 == u && $0.1 == v }?.2 ?? 1_000_000
                }
                return (n, cost)
            }
            var best = (0, Int64(0))
            var used = [Bool](repeating: false, count: nR)
            func go(_ u: Int, _ n: Int, _ c: Int64) {
                if u == nL {
                    if n > best.0 || (n == best.0 && c < best.1) { best = (n, c) }
                    return
                }
                go(u + 1, n, c)
                for (eu, v, ec) in edges where eu == u && !used[v] {
                    used[v] = true
                    go(u + 1, n + 1, c + ec)
                    used[v] = false
                }
            }
            go(0, 0, 0)
            let rowResult = rowByRowAssignment(rows: rows, columnCount: nR)
            #expect(rowResult.map(score) ?? (-1, -1) == best)
            #expect(score(ssp.solve()) == best)
        }
        // Costs so large that the dummy bound would overflow: the row solver declines.
        #expect(rowByRowAssignment(rows: [[(0, Int64.max / 4)], [(0, 1)]], columnCount: 1) == nil)
    }

    @Test func denseGridOf2000CellsWithAmbiguousPredictions() {
        // 2000 labels on a 50 x 40 grid, 6 px apart, r = 10 (allowed 5 px), so a prediction
        // half-way between two labels reaches both and the allowed-pair graph is one big
        // component. Predictions: every label shifted by +3 px in x (each reaches its own
        // label at 3 px and the right neighbour at 3 px).
        var labels: [MatchTarget] = []
        var preds: [Point] = []
        for row in 0..<40 {
            for col in 0..<50 {
                labels.append(t(Double(col) * 6, Double(row) * 6, 10))
                preds.append(p(Double(col) * 6 + 3, Double(row) * 6))
            }
        }
        let m = matchCentres(predicted: preds, labelled: labels)
        #expect(m.truePositives == 2000)
        #expect(abs(m.totalDistance - 6000) < 1e-3)
        // Drop every 7th prediction: still a maximum matching of every prediction.
        let sparse = preds.enumerated().filter { $0.offset % 7 != 0 }.map(\.element)
        let m2 = matchCentres(predicted: sparse, labelled: labels)
        #expect(m2.truePositives == sparse.count)
        #expect(m2.falseNegatives == 2000 - sparse.count)
    }

    @Test func jitteredGridMatchesEveryCell() {
        var rng = SplitMix64(seed: 7)
        var labels: [MatchTarget] = []
        var preds: [Point] = []
        for row in 0..<40 {
            for col in 0..<50 {
                let x = Double(col) * 20, y = Double(row) * 20
                labels.append(t(x, y, 8))
                let jx = Double(rng.next() % 600) / 100 - 3, jy = Double(rng.next() % 600) / 100 - 3
                preds.append(p(x + jx * 0.9, y + jy * 0.9))
            }
        }
        let m = matchCentres(predicted: preds, labelled: labels)
        #expect(m.falseNegatives + m.truePositives == 2000)
        // Each prediction lies within 3.82 px of its own label (allowed 4 px).
        #expect(m.truePositives == 2000)
        #expect(m.pairs.allSatisfy { $0.prediction == $0.label })
    }

    /// The best (count, then cost) over every one-to-one assignment, by recursion.
    func exhaustiveBest(_ preds: [Point], _ labels: [MatchTarget]) -> (count: Int, cost: Double) {
        var best = (count: 0, cost: 0.0)
        var usedLabel = [Bool](repeating: false, count: labels.count)
        func go(_ i: Int, _ count: Int, _ cost: Double) {
            if i == preds.count {
                if count > best.count || (count == best.count && cost < best.cost) { best = (count, cost) }
                return
            }
            go(i + 1, count, cost)
            for j in labels.indices where !usedLabel[j] {
                let d = ((preds[i].x - labels[j].x) * (preds[i].x - labels[j].x)
                         + (preds[i].y - labels[j].y) * (preds[i].y - labels[j].y)).squareRoot()
                if d <= MatchRule.standard.allowedDistance(labelRadius: labels[j].r) {
                    usedLabel[j] = true
                    go(i + 1, count + 1, cost + d)
                    usedLabel[j] = false
                }
            }
        }
        go(0, 0, 0)
        return best
    }
}

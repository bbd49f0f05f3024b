/// Exact maximum-cardinality, minimum-cost matching on a sparse bipartite graph, solved as a
/// rectangular assignment problem one row at a time (the Hungarian method with Dijkstra and
/// potentials).
///
/// Every row gets a private dummy column at cost `B`, larger than the cost of any matching
/// of real edges times the largest possible cardinality, so that a full assignment of the rows
/// always exists and the cheapest one first minimises the number of dummy (unmatched) rows and
/// then the total real cost: exactly "maximum cardinality, then minimum distance". Each row is
/// added by one Dijkstra from that row alone, which stops at the first free column, so on
/// geometric graphs each search stays local (a search from all unmatched rows at once, as in
/// plain successive shortest paths, touches every unmatched row every time).
///
/// Ties between equal distances go to the lower node number (real columns before dummies).
///
/// - Parameters:
///   - rows: for each row, its allowed columns and non-negative integer costs.
///   - columnCount: number of real columns.
/// - Returns: for each row its column or -1; nil when the costs are so large that the
///   potentials could overflow 64-bit arithmetic (the caller then uses another method).
func rowByRowAssignment(rows: [[(column: Int, cost: Int64)]], columnCount: Int) -> [Int]? {
    let nRows = rows.count, nCols = columnCount
    guard nRows > 0 else { return [] }
    var maxCost: Int64 = 0
    for edges in rows { for e in edges { maxCost = max(maxCost, e.cost) } }
    // B > maxCost * (largest matching + 1); every distance and potential stays within
    // (2 * rows + 3) * B (see the bound in the comment of the search below).
    let cardinality = Int64(min(nRows, nCols) + 1)
    let scaled = maxCost.multipliedReportingOverflow(by: cardinality)
    guard !scaled.overflow, scaled.partialValue < Int64.max - 1 else { return nil }
    let dummyCost = scaled.partialValue + 1
    guard !dummyCost.multipliedReportingOverflow(by: Int64(2 * nRows + 3)).overflow else { return nil }

    let columnTotal = nCols + nRows // real columns, then one dummy per row
    let adjacency = rows.map { $0.sorted { ($0.column, $0.cost) < ($1.column, $1.cost) } }
    var rowPotential = [Int64](repeating: 0, count: nRows)
    var columnPotential = [Int64](repeating: 0, count: columnTotal)
    var columnOfRow = [Int](repeating: -1, count: nRows)
    var rowOfColumn = [Int](repeating: -1, count: columnTotal)
    var costOfColumnMatch = [Int64](repeating: 0, count: columnTotal)

    // Search state; node ids: rows 0..<nRows, columns nRows + c.
    let nodeCount = nRows + columnTotal
    var distance = [Int64](repeating: 0, count: nodeCount)
    var parent = [Int](repeating: -1, count: nodeCount)
    var parentCost = [Int64](repeating: 0, count: nodeCount)
    var reachedStamp = [Int](repeating: -1, count: nodeCount)
    var settledStamp = [Int](repeating: -1, count: nodeCount)
    var settled: [Int] = []
    var heap = NodeHeap()

    for start in 0..<nRows {
        // Potentials keep every residual arc's reduced cost >= 0, so Dijkstra applies. The
        // search ends at the first free column it settles; the start row's own dummy column
        // is always free and at most B away, so it always ends.
        settled.removeAll(keepingCapacity: true)
        heap.removeAll()
        distance[start] = 0
        reachedStamp[start] = start
        heap.push(NodeHeap.Entry(key: 0, node: start))
        var freeColumn = -1
        var freeDistance: Int64 = 0

        func reach(_ node: Int, _ d: Int64, from: Int, cost: Int64) {
            if settledStamp[node] == start { return }
            if reachedStamp[node] != start || d < distance[node] {
                reachedStamp[node] = start
                distance[node] = d
                parent[node] = from
                parentCost[node] = cost
                heap.push(NodeHeap.Entry(key: d, node: node))
            }
        }

        while let entry = heap.popMin() {
            let x = entry.node
            if settledStamp[x] == start || entry.key != distance[x] { continue }
            settledStamp[x] = start
            settled.append(x)
            let dx = entry.key
            if x < nRows {
                // Forward arcs: the row's unmatched edges and its dummy.
                let current = columnOfRow[x]
                for e in adjacency[x] where e.column != current {
                    let y = nRows + e.column
                    reach(y, dx + e.cost + rowPotential[x] - columnPotential[e.column], from: x, cost: e.cost)
                }
                let dummy = nCols + x
                if current != dummy {
                    reach(nRows + dummy, dx + dummyCost + rowPotential[x] - columnPotential[dummy], from: x, cost: dummyCost)
                }
            } else {
                let c = x - nRows
                let owner = rowOfColumn[c]
                if owner < 0 {
                    freeColumn = c
                    freeDistance = dx
                    break
                }
                // Backward arc along the matched edge.
                reach(owner, dx - costOfColumnMatch[c] + columnPotential[c] - rowPotential[owner], from: x, cost: 0)
            }
        }
        guard freeColumn >= 0 else { return nil } // unreachable: the dummy is always free

        for x in settled {
            let shift = distance[x] - freeDistance
            if x < nRows { rowPotential[x] += shift } else { columnPotential[x - nRows] += shift }
        }

        // Augment: walk back from the free column, flipping matched and unmatched edges.
        var c = freeColumn
        while true {
            let row = parent[nRows + c]
            let previous = columnOfRow[row]
            columnOfRow[row] = c
            rowOfColumn[c] = row
            costOfColumnMatch[c] = parentCost[nRows + c]
            if row == start { break }
            c = previous
        }
    }
    return columnOfRow.map { $0 < nCols ? $0 : -1 }
}

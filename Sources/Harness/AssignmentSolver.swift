/// Exact minimum-cost maximum-cardinality matching on a sparse bipartite graph with integer
/// costs, used when costs are too large for `rowByRowAssignment`'s dummy-column bound (allowed
/// distances of about 10^5 px and more): successive shortest augmenting paths (min-cost flow with unit capacities), each path
/// found by Dijkstra on reduced costs with node potentials (Johnson), stopping as soon as the
/// sink is settled. Every intermediate matching is cheapest for its size, so the final one
/// (no augmenting path left: maximum cardinality) is the cheapest maximum matching. Each
/// search starts from every unmatched left node at once, so dense components cost
/// O(nodes^2) and more; the row-by-row solver avoids that.
///
/// Node numbering: left 0..<L, right L..<L+R, source L+R, sink L+R+1. Ties between equal
/// distances are broken by the lower node number, so results depend only on the input order.
struct AssignmentSolver {
    let leftCount: Int
    let rightCount: Int
    private var edgesOf: [[(right: Int, cost: Int64)]]

    init(leftCount: Int, rightCount: Int) {
        self.leftCount = leftCount
        self.rightCount = rightCount
        edgesOf = Array(repeating: [], count: leftCount)
    }

    /// Adds an allowed pair; `cost` must be non-negative.
    mutating func addEdge(left: Int, right: Int, cost: Int64) {
        edgesOf[left].append((right, cost))
    }

    /// Returns, for each left node, its right partner or -1.
    func solve() -> [Int] {
        let nL = leftCount, nR = rightCount
        let source = nL + nR, sink = nL + nR + 1
        let nodeCount = nL + nR + 2
        let adjacency = edgesOf.map { $0.sorted { ($0.right, $0.cost) < ($1.right, $1.cost) } }

        var matchOfLeft = [Int](repeating: -1, count: nL)
        var matchOfRight = [Int](repeating: -1, count: nR)
        var matchCostOfRight = [Int64](repeating: 0, count: nR)
        var potential = [Int64](repeating: 0, count: nodeCount)
        var distance = [Int64](repeating: 0, count: nodeCount)
        var parent = [Int](repeating: -1, count: nodeCount)
        var parentCost = [Int64](repeating: 0, count: nodeCount)
        // Per-node iteration stamps replace an O(N) reset of the arrays above per search.
        var reachedStamp = [Int](repeating: -1, count: nodeCount)
        var settledStamp = [Int](repeating: -1, count: nodeCount)
        var freeLeft = Array(0..<nL).filter { !adjacency[$0].isEmpty }
        var settled: [Int] = []
        var heap = NodeHeap()

        var iteration = 0
        while !freeLeft.isEmpty {
            iteration += 1
            settled.removeAll(keepingCapacity: true)
            heap.removeAll()
            // The source is settled at distance 0; its arcs to the free left nodes are relaxed
            // at once by building the heap in O(n).
            var initial: [NodeHeap.Entry] = []
            initial.reserveCapacity(freeLeft.count)
            for u in freeLeft {
                let d = potential[source] - potential[u]
                distance[u] = d
                parent[u] = source
                reachedStamp[u] = iteration
                initial.append(NodeHeap.Entry(key: d, node: u))
            }
            heap.build(from: initial)
            var sinkDistance: Int64 = -1

            while let entry = heap.popMin() {
                let x = entry.node
                if settledStamp[x] == iteration || entry.key != distance[x] { continue }
                settledStamp[x] = iteration
                if x == sink {
                    sinkDistance = entry.key
                    break
                }
                settled.append(x)
                let dx = entry.key
                if x < nL {
                    let current = matchOfLeft[x]
                    for edge in adjacency[x] where edge.right != current {
                        let y = nL + edge.right
                        if settledStamp[y] == iteration { continue }
                        let nd = dx + edge.cost + potential[x] - potential[y]
                        if reachedStamp[y] != iteration || nd < distance[y] {
                            reachedStamp[y] = iteration
                            distance[y] = nd
                            parent[y] = x
                            parentCost[y] = edge.cost
                            heap.push(NodeHeap.Entry(key: nd, node: y))
                        }
                    }
                } else {
                    let v = x - nL
                    let partner = matchOfRight[v]
                    let (y, cost) = partner < 0 ? (sink, Int64(0)) : (partner, -matchCostOfRight[v])
                    if settledStamp[y] == iteration { continue }
                    let nd = dx + cost + potential[x] - potential[y]
                    if reachedStamp[y] != iteration || nd < distance[y] {
                        reachedStamp[y] = iteration
                        distance[y] = nd
                        parent[y] = x
                        heap.push(NodeHeap.Entry(key: nd, node: y))
                    }
                }
            }
            if sinkDistance < 0 { break }

            // Potentials: every settled node moves by its distance minus the sink's; unreached
            // nodes move by zero (the common shift cancels in reduced costs).
            for x in settled { potential[x] += distance[x] - sinkDistance }
            potential[source] -= sinkDistance

            // Augment along the path sink <- right <- left <- ... <- source.
            var v = parent[sink] - nL
            while true {
                let u = parent[nL + v]
                let previous = matchOfLeft[u]
                matchOfLeft[u] = v
                matchOfRight[v] = u
                matchCostOfRight[v] = parentCost[nL + v]
                if previous < 0 { break }
                v = previous
            }
            freeLeft.removeAll { matchOfLeft[$0] >= 0 }
        }
        return matchOfLeft
    }
}

/// Binary min-heap of (key, node), ties broken by the lower node; lazy deletion by the caller.
struct NodeHeap {
    struct Entry {
        var key: Int64
        var node: Int
        @inline(__always) func precedes(_ other: Entry) -> Bool {
            key < other.key || (key == other.key && node < other.node)
        }
    }
    private var items: [Entry] = []

    mutating func removeAll() { items.removeAll(keepingCapacity: true) }

    /// Replaces the content with `entries` in O(n).
    mutating func build(from entries: [Entry]) {
        items.removeAll(keepingCapacity: true)
        items.append(contentsOf: entries)
        var i = items.count / 2 - 1
        while i >= 0 {
            siftDown(i)
            i -= 1
        }
    }

    mutating func push(_ entry: Entry) {
        items.append(entry)
        var i = items.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            if !items[i].precedes(items[p]) { break }
            items.swapAt(i, p)
            i = p
        }
    }

    mutating func popMin() -> Entry? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            siftDown(0)
        }
        return first
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        let n = items.count
        while true {
            let l = 2 * i + 1
            if l >= n { return }
            var m = l
            if l + 1 < n && items[l + 1].precedes(items[l]) { m = l + 1 }
            if !items[m].precedes(items[i]) { return }
            items.swapAt(i, m)
            i = m
        }
    }
}

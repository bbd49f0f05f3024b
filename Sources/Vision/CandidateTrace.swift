import Foundation

/// What happened near a few points of an image as the candidates passed the pipeline's steps:
/// the answer to "why was this cell missed?" (`cellqa count --explain X,Y`).
///
/// Stages record their candidate lists after each step that adds, moves or drops candidates;
/// a record keeps, for each probe, how many candidates lie within `reach` of it and the
/// nearest one. The first step after which none is near is where the cell was lost. Recording
/// costs nothing when no trace is asked for (`Frame.trace` is nil).
public struct CandidateTrace: Sendable, Equatable {
    /// A point to watch, image pixels.
    public struct Probe: Sendable, Equatable {
        public var x: Double
        public var y: Double
        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    /// The candidate nearest a probe after one step, image pixels.
    public struct Nearest: Sendable, Equatable {
        public var x: Double
        public var y: Double
        public var r: Double
        public var distance: Double
        /// What the step measured on it (boundary coverage, class...), or empty.
        public var note: String
    }

    /// One step's view of one probe.
    public struct Entry: Sendable, Equatable {
        public var step: String
        /// Candidates within `reach` of the probe.
        public var near: Int
        public var nearest: Nearest?
    }

    public let probes: [Probe]
    /// How far from a probe a candidate counts as "near", image pixels.
    public let reach: Double
    /// `entries[p]` lists probe `p`'s entries in step order.
    public private(set) var entries: [[Entry]]

    public init(probes: [Probe], reach: Double) {
        self.probes = probes
        self.reach = reach
        entries = probes.map { _ in [] }
    }

    /// Records `step` for every probe. `position` maps an item to its centre and radius in
    /// image pixels; `note` describes the nearest item (evaluated for it alone).
    mutating func record<T>(_ step: String, _ items: [T], position: (T) -> (x: Double, y: Double, r: Double),
                            note: (T) -> String = { _ in "" }) {
        let placed = items.map(position)
        for (p, probe) in probes.enumerated() {
            var near = 0
            var best: Int?
            var bestD = Double.infinity
            for (i, c) in placed.enumerated() {
                let d = ((c.x - probe.x) * (c.x - probe.x) + (c.y - probe.y) * (c.y - probe.y)).squareRoot()
                guard d <= reach else { continue }
                near += 1
                if d < bestD { bestD = d; best = i }
            }
            let nearest = best.map { Nearest(x: placed[$0].x, y: placed[$0].y, r: placed[$0].r, distance: bestD, note: note(items[$0])) }
            entries[p].append(Entry(step: step, near: near, nearest: nearest))
        }
    }

    /// Records working-scale candidates (before the `candidates` stage maps them to image
    /// pixels) at `scale` image pixels per working pixel.
    mutating func record(_ step: String, working candidates: [Candidate], scale: Int,
                         note: (Candidate) -> String = { _ in "" }) {
        let working = WorkingScale(scale)
        record(step, candidates, position: { (working.toImage($0.x), working.toImage($0.y), $0.r * working.factor) },
               note: note)
    }
}

/// Two decimals, for trace notes.
func fmt(_ v: Double) -> String { String(format: "%.2f", v) }

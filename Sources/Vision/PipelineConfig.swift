import Hemocytometer

/// Which candidate detector runs in the `candidates` stage.
public enum DetectorKind: String, Sendable, Equatable, CaseIterable {
    /// Multi-scale Difference of Gaussians on the local-contrast map (both polarities at once).
    case dog
    /// Otsu threshold of the contrast map, connected components, shape filters, watershed split.
    case threshold
}

/// Where the cell size range comes from.
public enum CellSizeSource: String, Sendable, Equatable, CaseIterable {
    /// `minRadiusPx ... maxRadiusPx` always.
    case pixels
    /// `minDiameterUm ... maxDiameterUm` through the grid calibration when a grid is found,
    /// the pixel range otherwise.
    case calibration
}

/// Every parameter of the pipeline, with documented defaults. Two configs are two algorithm
/// versions; `configHash` identifies one.
public struct PipelineConfig: Sendable, Equatable {
    // MARK: cell size
    /// Detector used in the `candidates` stage.
    public var detector: DetectorKind = .dog
    /// Source of the cell size range (see `CellSizeSource`).
    public var sizeFrom: CellSizeSource = .pixels
    /// Smallest cell radius, image pixels.
    public var minRadiusPx: Double = 5
    /// Largest cell radius, image pixels.
    public var maxRadiusPx: Double = 12
    /// Smallest cell diameter, micrometres (used with `sizeFrom = calibration`).
    public var minDiameterUm: Double = 8
    /// Largest cell diameter, micrometres.
    public var maxDiameterUm: Double = 30
    /// The working scale is the largest integer downsampling factor that keeps the smallest
    /// cell radius at least this many working pixels. Pixels.
    public var minWorkingRadiusPx: Double = 2.5
    /// Explicit downsampling factor (1 = full resolution); 0 = choose from the cell size.
    public var workingScale: Int = 0

    // MARK: normalize / illumination
    /// A pixel with any channel at or above this 8-bit value counts as glare.
    public var glareLevel: Int = 250
    /// Glare fraction above which the image is flagged "glare".
    public var glareMaxRatio: Double = 0.02
    /// Variance of the Laplacian of the 8-bit-scaled luminance below which the image is
    /// flagged "low-focus".
    public var minFocus: Double = 2
    /// Background blur sigma in multiples of the largest cell radius.
    public var backgroundSigmaRadii: Double = 3
    /// The background's first estimate, which decides what its second pass leaves out, from
    /// block medians rather than means (`estimateBackground`): ruling lines, bright or dark,
    /// and cells covering less than half a block do not move it.
    public var robustBackground: Bool = true
    /// Contrast-map pre-smoothing sigma in multiples of the smallest working radius.
    public var contrastSmoothingRadii: Double = 0.3
    /// Soft saturation of the contrast map, natural-log units (0 = none); see `contrastMap`.
    public var contrastCap: Double = 0.4

    // MARK: grid
    /// Look for the chamber ruling at all.
    public var gridEnabled: Bool = true
    /// Minimum normalised periodicity (0 ... 1) of the projection profile to accept a grid.
    public var gridMinPeriodicity: Double = 0.25
    /// A line family is no ruling when both halves of the view (cut along its lines) show
    /// structure across it whose profiles correlate below this (`HalfProfileAgreement`): the
    /// chance periodicity of a few cells in a small view. 0 = off.
    public var gridMinHalfAgreement: Double = 0.3
    /// In a small view (under 400 working pixels either way) two line families are no ruling
    /// when neither has a line that shows along this share of its length (`lineContinuity`:
    /// segments of 8 working pixels standing 2.5 noise deviations above the lower of their
    /// sides an eighth of a period away): a few cells can make periodic-looking profiles there,
    /// and one half of the view flat says nothing to `gridMinHalfAgreement`. (One family
    /// suffices: where the ruled area ends in view, or glare breaks a line, the other's show
    /// along half.) 0 = off.
    public var gridMinLineContinuity: Double = 0.6
    /// Refine the registered image -> chamber map, which is affine, to a homography from where
    /// the ruling's lines lie in tiles of the view (`perspectiveRefined`), for a chamber
    /// photographed a little off square; kept only when it fits the lines better (the
    /// calibration, µm per pixel, stays the registration's). Off: the affine map.
    public var gridPerspective: Bool = true
    /// Where the whole view registers no ruling, look for one seen strongly off square: the
    /// directions of the lines tile by tile give each family's vanishing point, the view is
    /// rectified so that the lines run parallel (`KeystoneRectification`), and the search and
    /// registration run on the rectified view; the map found is composed with the
    /// rectification (a homography), then refined as `gridPerspective` refines. Off: such a
    /// view has no ruling ("no-grid").
    public var gridKeystone: Bool = true
    /// Where a large view registers no ruling (nor, with `gridKeystone`, its rectified copy),
    /// search the view once more on the line contrast with its smooth part taken out
    /// (`smoothResidueRemoved`: the contrast less its Gaussian blur at a fifth of the smallest
    /// line spacing, clipped at 0): glare and the shading round it leave broad residue in the
    /// flattened view that buries a ruling's periodicity. The ruling found is kept only where
    /// the registration pins its scale. Off: such a view has no ruling.
    public var gridResidueRetry: Bool = true
    /// Decide the registration on the whole view (`registerRulingInView`): every pair of the
    /// two families' fits is drawn through its chamber map and compared with the view in two
    /// dimensions (`RulingView.agreement`), which sees where the central square's 50 µm lines stop
    /// and where the spacing changes. Off: each family's projection decides (`registerRuling`),
    /// which takes the central square's 200 µm group squares for 250 µm squares in views that
    /// straddle it and a neighbour.
    public var gridRegisterInView: Bool = true
    /// With `gridRegisterInView`, each chamber map is also compared with a ruling whose side
    /// squares are empty (the four large squares between the corners ruled with their borders
    /// only, the central square's triple lines and the corner squares' single lines stopping
    /// at them); that comparison, less a handicap of 0.04 (`RulingView.agreement`), counts
    /// where it is the better. Chambers are made both ways; compared with the standard drawing
    /// alone, a view with an empty side square sees predicted lines missing there and can take
    /// a 250 µm corner square for the central square's 50 µm ruling (a fifth of the scale).
    /// Off: the standard drawing only.
    public var gridEmptySideSquares: Bool = true
    /// A registration that puts the whole view outside the ruled area (3 x 3 mm) is no
    /// ruling (`viewMeetsRuledArea`): the lines a view shows lie inside the ruled area, so
    /// such a map has the scale or the place wrong. (A fifth-generator blank control with
    /// faint lines registered a diagonal family at 21.9 µm per pixel, 18 times its true
    /// scale, its ruled area a 140-pixel square above the view, and flagged nothing.) Off:
    /// any registration stands.
    public var gridViewInRuledArea: Bool = true
    /// Smallest and largest grid line spacing searched, image pixels.
    public var gridMinSpacingPx: Double = 40
    public var gridMaxSpacingPx: Double = 600
    /// Spacing taken for the detected line period, micrometres, when the ruling in view
    /// cannot tell (flag "grid-scale-assumed"): on the projections alone, no triple line or
    /// change of spacing in view; on the whole view (`gridRegisterInView`), a pair of this
    /// spacing explains the view within 0.01 of the best. Otherwise the registration against
    /// the Neubauer ruling decides (50, 200, 250 or 1000). 250: the outer large squares'
    /// subdivision.
    public var gridSpacingUm: Double = 250
    /// The microscope's calibration, micrometres per image pixel, for a view in which no ruling
    /// is registered (flag "no-grid": at high magnification a view shows too few lines to
    /// register, and a faint or absent ruling none). With it such a view is calibrated all the
    /// same (flag "calibration-from-config"): the concentration comes from the density over
    /// the field ("concentration-from-area") and `sizeFrom = calibration` takes the cell size
    /// through it. A registered ruling's own calibration always wins. 0 = none: such a view
    /// stays uncalibrated (totals only).
    public var umPerPixel: Double = 0
    /// Median block length along a line for grid-line and fibre removal, in multiples of the
    /// largest cell diameter (a cell must cover less than half a block; see `lineMedian`).
    public var lineRemovalLengthDiameters: Double = 4
    /// When no ruling is found, remove straight structures at 0/45/90/135 degrees (fibres and
    /// the ruling's own lines); with a ruling, removal runs along its two directions only.
    public var removeFibres: Bool = true
    /// Where ruling lines cross, subtract both lines' contrast in full (`removeLines`): right
    /// when light passes through both lines (absorptions multiply), as in real chambers seen
    /// in transmitted light. Off (default): subtract between the larger line and both,
    /// whichever the observed contrast supports, which also clears crossings of lines drawn
    /// over each other (renderings, some optics) instead of leaving a cell-sized dip.
    public var additiveCrossings: Bool = false

    // MARK: candidates
    /// Scale levels of the DoG stack spanning the radius range.
    public var scaleLevels: Int = 8
    /// Minimum detection score (DoG peak over the robust noise of its level). Sweeping it gives
    /// the precision/recall curve.
    public var minScore: Double = 3
    /// Minimum peak contrast (Weber contrast of the flattened luminance, unitless).
    public var minContrast: Double = 0.04
    /// Largest ratio of the Hessian's principal curvatures at a peak (elongated shapes above).
    public var maxEdgeRatio: Double = 3
    /// Move each centre to the contrast centroid within 0.8 r (`refineCentre`).
    public var refineCentres: Bool = false
    /// Move each centre to where its boundary's gradients point (`voteCentre`, full
    /// resolution): DoG peaks of touching cells are pushed apart.
    public var voteCentres: Bool = true
    /// A candidate that voted again at its measured boundary radius (the detector's radius
    /// was too small) has its boundary measured once more where that vote went, and votes a
    /// third time when it is again over 1.1 times the radius, unless another candidate lies
    /// within this many of the new radii (in a clump the measure reaches the neighbours' rims).
    /// The measure reaches 1.6 radii: a clear cell the detector found by its bright middle
    /// (half its radius) shows only part of its rim at the second radius. (Twenty-sixth
    /// session: +3 to +15 cells on nine of the ten independent and third-generator draws, −1
    /// on the tenth, −3 to +3 false detections; with `rulingCopySingleResidual`, F1 +0.0004
    /// ... +0.0013. Without the clump rule up to +11 cells, but `cellqa synth`'s dense clumps
    /// lost 4-6. Again over 1.15 times: two fifths less gain; 1.0 and 1.05 the same gain as
    /// 1.1 with 2 more blank-control detections.) 0 = off.
    public var revoteIsolationRadii: Double = 1.5
    /// Smallest fraction of 16 sectors around a candidate holding a boundary that faces its
    /// centre (`radialEdgeCoverage`); 0 disables the test.
    public var minEdgeCoverage: Double = 0.75
    /// A candidate's boundary radius on the full-resolution image (`boundaryRadius`) must
    /// reach this fraction of `minRadiusPx`: debris specks are round too, but small. 0 = off.
    public var minEdgeRadiusFraction: Double = 0.8
    /// A candidate cut by the image border is judged on the part of its rim inside the image
    /// (`visibleSectorShare`): its edge coverage counts only the sectors in view. Off when the
    /// labels leave partly visible cells out (ldc-maxkudi's small crops: on, F1 0.907 -> 0.897).
    public var borderCells: Bool = true
    /// Largest share of a candidate's boundary running along the ruling (`radialEdgeCoverage`):
    /// rejects the inside of small ruling squares. 1 = off.
    public var maxGridAlignedEdges: Double = 0.45
    /// Coverage asked beyond `minEdgeCoverage` (fraction of the 16 sectors) of a rim measured
    /// where ruling lines add edges of their own: a candidate's rim with the line subtracted
    /// (a step along the line strays by up to half a pixel, so the strokes' edges leave a
    /// residue that faces a centre between them) and a stained candidate's rim in a
    /// triple-line crossing (the crossing's dark core reads as stain). One sector: blank
    /// controls of the three independent synthetic draws 13 -> 11 false detections, F1 of every
    /// synthetic set level or up by 0.0003 (two sectors: no better). 0 = no margin.
    public var lineEdgeCoverageMargin: Double = 0.0625
    /// A boundary pixel's gradient must exceed this many gradient-noise standard deviations.
    /// (4.5 rather than 5: faint cells in heavy sensor noise keep their boundary; F1 on the
    /// independently generated synthetic set +.004, Goldens and own synthetic sets level.)
    public var edgeThresholdNoise: Double = 4.5
    /// Gaussian sigma, working pixels, of the log luminance the boundary tests read
    /// (`radialEdgeCoverage`, the bright-spot rim, the stain map's luminance). More smears a
    /// ruling line's edge into the rim of a small cell beside it (0.7: Goldens F1 +0.006);
    /// less lets JPEG blocking through where blur has left little other noise to set the edge
    /// threshold (0.7: a blurred JPEG q60 image went from 19 to 158 false detections).
    public var edgeSmoothingPx: Double = 0.7
    /// The boundary gradient threshold is at least this fraction of `minContrast` per working
    /// pixel, whatever the noise estimate says: a blurred JPEG's block edges are nearly all
    /// the texture it has left, and against so little noise they pass for boundaries.
    /// 0 = the noise estimate alone.
    public var edgeThresholdContrast: Double = 0.7
    /// DoG: split elongated blobs (touching pairs) along their major axis instead of dropping them.
    public var splitElongated: Bool = true
    /// DoG: also take dips of the line-free contrast map as candidates. A clear cell lying on
    /// a heavy ruling line hides the line beneath it, so once the line is removed the cell is
    /// a hole, not a blob.
    public var detectHoles: Bool = true
    /// DoG: a hole may be smaller than the smallest cell (peak on a level below the one it
    /// is found on). A clear cell on a line leaves a dip only where its bright centre covered
    /// the line, a core about half its radius, inside a ring of its own rim; such a hole is a
    /// candidate, and like a bright spot it has to show a dark rim around it
    /// (`brightSpotRimDepth`). (The independent synthetic set: 59 more cells found, most on
    /// lines, for 34 more false detections, F1 +0.002; recall up on every synthetic set.)
    public var holeSpots: Bool = true
    /// DoG: also take cell centres where the whole image's boundary gradients meet
    /// (`centreSeeds`): a clump or chain of touching cells is one blob to the DoG but each
    /// cell's rim still points at its own centre. A centre needs this many votes, in units of
    /// the smallest cell's circumference. 0 = off; the seeds vote on the boundary test's map,
    /// so they are off too when `minEdgeCoverage` is 0. (6 rather than 7: cells in clumps
    /// whose rims are partly hidden; together with `edgeThresholdNoise` 4.5, independent
    /// synthetic set F1 .905 -> .913, own synthetic .962 -> .966, JPEG q60 .975 -> .972.)
    public var seedMinVotes: Double = 6
    /// DoG: also take the bright cores inside a closed dark ring beside the candidates found
    /// (`coreSeeds`): the cells of a clump the detector merged, which in a blurred image show
    /// too little edge for the centre seeds. A core stands at least this much above the ring
    /// round it and above the darkest point of each ray that counts (log luminance, smoothed).
    /// 0 = off; also off when `minEdgeCoverage` is 0 (the seeds read the boundary test's map).
    /// (Fifteenth session, the six independent draws: F1 0.9406 -> 0.9434 over their 140
    /// images, +194 cells for +74 false detections; flat within +-0.0002 over 0.04 ... 0.08,
    /// `coreSeedRimDepth` 0.03 ... 0.1 and `coreSeedRays` 12 ... 15.)
    public var coreSeedContrast: Double = 0.06
    /// A core's ray counts when its darkest point (0.6 ... 1.4 radii out) lies at least this far
    /// below the background (log luminance): a cell's rim is darker than the background, the
    /// background between cells is not.
    public var coreSeedRimDepth: Double = 0.06
    /// Rays of 16 round a core that must find such a rim: a spot between cells opens onto the
    /// background in some direction.
    public var coreSeedRays: Int = 14
    /// DoG: a spot smaller than the smallest cell is still a candidate when its centre is at
    /// least this much brighter than the background (log luminance, smoothed): a defocused
    /// live cell shows as a bright spot, its dark rim spread thin. The boundary and size tests
    /// downstream still decide. Debris specks absorb, so they stay out. 0 = off; also off
    /// when `minEdgeCoverage` is 0 (the rule reads the boundary test's map).
    public var brightSpotLevel: Double = 0.1
    /// Such a spot must lie inside a dark rim at least this deep (log luminance below the
    /// background; `darkRimDepth` between 0.8 and 2 smallest radii): a bright speck of debris
    /// or glare has none.
    public var brightSpotRimDepth: Double = 0.02
    /// Every unstained candidate must lie inside a ring at least this much darker than the
    /// background (log luminance, smoothed; `darkRimDepth` between 0.6 and 1.6 radii), as a
    /// bright spot must (`brightSpotRimDepth`). A cell's refractive boundary is dark in either
    /// direction of defocus; glare, bubbles and bright specks pass the boundary test on their
    /// own edge and have none. 0 = off: for cells that show a bright body whose outline is
    /// much thinner than a working pixel (hemocytometer-ahnd6474's, radius 40-80 px).
    public var minRimDepth: Double = 0.02
    /// An unstained candidate is dropped when the darkest points of 32 rays from its centre
    /// (0.3 to 1.8 radii) scatter in radius by more than this (median absolute deviation, in
    /// radii) and some ray gets no darker than the background (`RimRing`): a spot between
    /// cells, whose "rim" is its neighbours'. 0 = off: for cells whose rim is not one ring at
    /// one radius (hemocytometer-ahnd6474's textured bodies, ldc-maxkudi's one-sided halos).
    /// (0.2 against off: the independent synthetic set -3 cells, -44 false detections; two
    /// draws never tuned on -1, -14 and -2, -21; the Goldens 0, -4; the cellqa synthetic set
    /// -1, -15 (a blank-control detection fewer); its JPEG q60 set -6, -52. On the real folders
    /// it lost cells: ldc-maxkudi -4, -1, hemocytometer-ahnd6474 -5, -2.) 0.15 with
    /// `rimOpenNoise` 2 (2026-11-27, twelfth session; see there).
    public var maxRimSpread: Double = 0.15
    /// A ray of `maxRimSpread`'s test is open (gets no darker than the background) when it
    /// never falls this many noise sigmas (`sampleNoise` of the smoothed log luminance) below
    /// it. 0: below zero at all closes it, which on a noisy image almost every ray of open
    /// background does somewhere along its 31 samples, so a spot between cells seldom showed
    /// an open ray. (2 with `maxRimSpread` 0.15 against 0 with 0.2: false detections -29, -11,
    /// -14 on the three independent draws for -8, -7, -5 cells, F1 +0.0014, +0.0003, +0.0011;
    /// cellqa synthetic -8, -2 (+0.0003); its JPEG q60 set -12, -2 (+0.0010); the Goldens
    /// -2, -7 (-0.0008, all in `hard`). Alone, rimOpenNoise 2 gave half of that; 3 and 4
    /// lost more cells than they saved false detections.)
    public var rimOpenNoise: Double = 2
    /// Colour images: a candidate whose centre is at least this much bluer than the image's
    /// typical colour (`stainPlane`: log of blue over mean red-green) may show its boundary on
    /// the stain map instead of in luminance, and is not taken for a crossing. Ruling lines
    /// are grey, so there a dead cell lying on a line keeps a boundary all round. 0 = off.
    public var stainLevel: Double = 0.1
    /// Colour images with a ruling found: a stained candidate on a ruling line that passed the
    /// boundary test is moved to the centre of its stain (`StainEvidence.centred`). The centre
    /// vote there counts the line's edges with the cell's and can settle off the cell (a dead
    /// cell half under a triple line); on the stain map the line is gone. (Thirteenth session:
    /// F1 +0.0004 ... +0.0020 on four independent draws, Goldens +0.0016; every stained
    /// candidate, on a line or not, worse on three of the draws; a search radius of 0.8 / 1.5
    /// radii instead of 1.2 no better / worse.)
    public var stainCentresOnLines = true
    /// A candidate is moved to the centre of the circle its rim draws (`RimCircle`: where each
    /// of 32 rays is darkest on the full-resolution image) when at least this share of the
    /// rays lies on that circle; 0 = off. The vote and the detector settle off a cell that
    /// lines or neighbours pull on; a circle most of the rays agree on is the cell's own.
    /// (Fourteenth session, measured first offline on the final detections of six independent
    /// draws: 28 of 32 rays moved 48 false detections onto a missed cell and no matched one off
    /// its cell, 27 of 32 also 4 matched ones off; the matched ones it moved came 0.23 -> 0.09
    /// radii from their labels. In the pipeline, F1 +0.0015 ... +0.0037 on the six draws; 0.84
    /// and 0.8 within +-0.0007 of it.)
    public var rimCentringAgreement: Double = 0.875
    /// The agreeing rays' median distance from the circle may be at most this, in radii
    /// (0.15: the same detections within one per set).
    public var rimCentringResidual: Double = 0.12
    /// Shorter moves than this, in radii, are not made: the vote's centre is as good, and a
    /// cell lying on a ruling line moved a pixel onto a stroke can read as debris there (a
    /// cell of the `standard` Golden at 0.15; the synthetic sets within +-4 detections of it).
    public var rimCentringMinShift: Double = 0.2
    /// A candidate that fails the boundary test is tested once more at the centre its rim
    /// draws (where `rimCentringAgreement` would move it): the vote can leave it off its cell,
    /// where the rim faces it from too few sectors. (Fourteenth session: F1 +0.0007 ... +0.0019
    /// on six independent draws, +3 ... +23 cells and -1 ... +2 false detections per draw, blank
    /// controls unchanged; `cellqa synth` +0.0003, q60 +0.0012, Goldens one false detection
    /// more; real-dev folders unchanged.)
    public var rimCentringRetest = true
    /// Colour images, with `rimCentringAgreement` on: a candidate that passed the boundary
    /// test by the smallest margin (its rim faces it from fewer than half a sector more than
    /// `minEdgeCoverage` asks) is dropped when no circle holds 60 % of the rays from it
    /// (`RimCircle.holdsMostRays`), unless it is stained or bright at its centre
    /// (`refractileContrast`). Such a spot borrows its rim from around it (the gap between a
    /// triple line's strokes closed by a crossing line or a speck, a lobe of a debris blob,
    /// background between cells); a cell's own rim is round, a dead cell (a filled disc, whose
    /// rays are darkest anywhere inside) shows its stain, and a live cell whose blurred rim
    /// is lost among a line's edges still has its bright core. Greyscale images have no stain
    /// to tell a dead cell by: off there. (Fourteenth session: see docs/history.md, the accuracy
    /// notes; at two sectors' margin more cells were lost than false detections; asking the
    /// fit to have settled too dropped cells whose 28 rays agreed after a fourth fit.)
    public var roundRimAtMargin = true
    /// Candidates where both ruling directions carry a line at least this strong (log contrast
    /// above the floor along their bisectors; `isOnCrossing`) are dropped: crossings leave
    /// residues and little squares that look like cells, also where a single line of the small
    /// squares crosses a triple line (0.24, heavy lines only, left those). Only candidates of
    /// the ruling's polarity and without stain (`isCrossingResidue`): a clear or a stained cell
    /// lying on a crossing is kept. 0 = off.
    public var crossingLineContrast: Double = 0.12
    /// With a ruling registered that reads dark overall, a bright candidate on a crossing
    /// (`crossingLineContrast`) is still taken for the crossing's residue where both lines
    /// show a bright core beside it (`hasBrightCore`): etched lines, bright between dark
    /// flanks, leave a bright square where they cross. (Thirty-fifth session: the fifth
    /// generator's seed-1 draw 69 false detections fewer, the fourth's s2 14; one cell lost on
    /// the independent default draw and one on the fifth's s2, no other set moved; +0.5 % of
    /// a `standard` image's instructions, +1.5 % of a `dense` one's.)
    public var crossingBrightLineCores: Bool = true
    /// Where the grid stage registered the ruling's scale: candidates centred on the core of
    /// two crossing triple lines (within `tripleLineOffsetUm` plus this margin, pixels, of
    /// both middle lines: the little squares between the strokes) are dropped unless the
    /// stain map shows a disc round them (a dead cell: `minEdgeCoverage` on the stain map; a
    /// stained centre alone is not enough, as the dark core's colour is mostly noise: 5
    /// blank-control detections of one image of the independent set's third draw). Those
    /// squares face their centres all round and hold no cell more often than a cell's centre
    /// falls in them. 0 = off.
    public var tripleCrossingMarginPx: Double = 2
    /// The core of two crossing triple lines (`tripleCrossingMarginPx`) reaches to the outer
    /// strokes' middles as the view shows them, when they lie further out than
    /// `tripleLineOffsetUm`: half the triple lines' measured width (`tripleLineHalfWidth`: the
    /// run of their profile above half its peak) less `tripleStrokeAllowanceUm`. Heavy triple
    /// lines drawn wide apart leave their little squares outside the nominal core.
    /// (Nineteenth session: the third generator's draws 0.9394 -> 0.9395 and 0.9257 -> 0.9268,
    /// 7 of their blank-control detections fewer; the six independent draws and the Goldens
    /// unchanged.)
    public var tripleWidthMeasured: Bool = true
    /// A candidate in the core of two crossing triple lines is dropped only where the image
    /// shows the crossing too (a misregistered ruling predicts lines where there are none);
    /// with this on, each line may run beside the candidate rather than through it, within
    /// the core's reach on each side (`isOnCrossing`'s `reach`). Strokes drawn 5-9 µm apart
    /// leave light squares between them that no line runs through but both lines' strokes
    /// flank. (Twenty-seventh session: the fourth generator's draws 0.9369 -> 0.9380 and
    /// 0.9085 -> 0.9215, 126 false detections fewer; no cell lost on any set.)
    public var tripleCrossingBetweenStrokes: Bool = true
    /// On the ruled area's border line (within the core's reach of chamber 0 or 3000 µm on
    /// either axis), the other family's lines end: the triple-crossing filter's image check
    /// takes each line's stronger half (`oneSidedLineStrength`), as both halves together
    /// hold as many samples off the line as on it. (Thirty-fifth session: the fourth
    /// generator's draws 9, 11 and 1 false detections fewer, 7 on blank controls, the Goldens
    /// one; 3 cells lost where triple lines meet the border, one of the independent default
    /// draw and two of `cellqa synth` main.)
    public var tripleCrossingAtBorder: Bool = true
    /// A candidate centred in a gap between ruling strokes narrower than a cell is dropped:
    /// along each of the two ruling directions (found, or the horizontal and vertical) the
    /// line strength through its centre (`lineStrength`) is at most half that of the
    /// strongest parallel line on each side within this many radii, and those lines are
    /// visible (`crossingLineContrast`); unless its disc shows on the stain map. The little
    /// squares between a triple line's strokes, where no registered ruling says so (a view
    /// registered a square off, or with no ruling found); a cell is wider than such a gap and
    /// lies across the strokes. The line map is asked the same first, at half the level, so
    /// that only candidates between lines pay for the strengths. (Twenty-seventh session: the
    /// fourth generator's draws 4 and 11 false detections fewer besides
    /// `tripleCrossingBetweenStrokes`, 9 and 85 without it; no other set moved, no cell lost;
    /// an early form reaching 2 radii lost 3 cells.) 0 = off.
    public var strokeGapRadii: Double = 1.5
    /// In a view whose ruling was found but whose scale could not be registered
    /// ("grid-scale-assumed"), where no rule that reads the chamber's geometry can place the
    /// triple lines: a candidate enclosed by ruling lines, one on each side along both ruling
    /// directions between 0.6 and this many radii from its centre and none through it
    /// (`isInRulingWindow`, lines as faint as the crossing test's), is the ruling's own window
    /// (the light squares between the strokes of crossing triple lines drawn far apart);
    /// unless its disc shows on the stain map. A cell there lies across the strokes. Views with
    /// a registered scale are left to the geometric rules (asked there too, the test cost the
    /// independent and third generators' draws 0.0005-0.0007 of F1). (Fortieth session: the
    /// sixth generator's second draw 0.8540 -> 0.8616, its heavy-lined `hard` view 210 -> 127
    /// false detections for no cell; no other set moved.) 0 = off.
    public var unregisteredWindowRadii: Double = 2.0
    /// The stroke-gap test (`strokeGapRadii`) also where a triple line ends at another: along
    /// each direction each line's strength is the stronger of its two halves
    /// (`oneSidedLineStrength`), and across one of the two directions the line map may stay
    /// level instead of showing a gap (inside the other family's triple band, whose line the
    /// map holds there). Without it, the junction's little squares pass wherever the
    /// registration misplaces the triple lines. (Thirtieth session: the fourth generator's
    /// three draws 7, 0 and 8 false detections fewer for one cell; no other set moved.)
    public var strokeGapsAtJunctions: Bool = true
    /// The stroke-gap test (`strokeGapRadii`) asked again at full resolution of the candidates
    /// it keeps: dropped when, across both ruling directions, strokes stand this far (log grey)
    /// off the background on each side within its reach and at most half as far at its centre
    /// (`strokeProfile`: per offset, the 20th and 80th percentiles along a line four radii each
    /// way, so that a line must run the whole stretch and a row of cells does not; unless its
    /// disc shows on the stain map). Strokes a few µm apart lie two or three working pixels
    /// apart, where the working planes blur them into one band, and faint strokes stay below
    /// `crossingLineContrast` there. Asked only where the line map shows lines on both sides
    /// across both directions, above the map at the centre. (Thirty-fourth session: the
    /// fourth generator's seed-2 draw 0.9295 -> 0.9334, 48 -> 15 false detections on its
    /// tilted, misregistered central view; `cellqa synth` q60 3 false detections fewer; no
    /// other set moved; +0.3 % of a `standard` image's instructions, +0.4 % of a `dense` one's.)
    /// 0 = off.
    public var fineStrokeGapContrast: Double = 0.04
    /// Where the ruling is mapped to the chamber, a candidate is dropped when at least
    /// `rulingCopyMatches` copies of its window one ruling period away (50, 200 or 250 µm
    /// along either ruling direction, aligned within 2 px) match it with a residual below this
    /// share of the window's own structure (`RulingCopies`): the window holds only the ruling.
    /// Heavy rulings leave light squares between their strokes that pass the boundary tests.
    /// (Twenty-first session: on the third generator's draws 16 and 34 false detections fewer,
    /// no cell lost; the six independent draws -9 false detections, -1 cell. 0.3 cost 6 cells
    /// of one draw and 2 of the Goldens. See docs/history.md.) 0 = off.
    public var rulingCopyResidual: Double = 0.25
    /// Copies that must match (`rulingCopyResidual`): more than one, as a cell can have a
    /// look-alike neighbour exactly a period away.
    public var rulingCopyMatches: Int = 2
    /// One copy is enough when it matches this closely (a residual at most this share of the
    /// window's own structure; below `rulingCopyResidual`): a look-alike cell never repeats its
    /// neighbour that exactly, while the ruling does, where a triple line's light squares have
    /// only one copy in view or the others are a pixel or two off the chamber map. (Twenty-sixth
    /// session: the third generator's three draws 9 false detections fewer, 3 of them on blank
    /// controls; no cell lost on any set. Of all the detections the three generators' draws
    /// keep with one matching copy, the cells' copies lie at 0.22 and above, the ruling's from
    /// 0.08. Fortieth session, 0.18 -> 0.225, from a one-at-a-time scan of the numeric keys at
    /// 0.8 and 1.25 times their defaults on six sets, the change that gained most while costing
    /// none of them F1: the fifth generator's first draw +0.0024, the fourth's two +0.0002; on
    /// the draws the scan did not see +0.0001 to +0.0006 or unchanged, both real folders
    /// unchanged. 0.3 cost the Goldens 0.0006.) 0 = off.
    public var rulingCopySingleResidual: Double = 0.225
    /// A copy also matches where its residual is within this many times the residual the
    /// image's noise alone gives two windows of the same scene (`RulingCopies.noiseResidual`)
    /// and at most `rulingCopyNoiseStructure` of the window's own structure: a faint, blurred
    /// ruling's crossings carry little structure beside the noise, so their copies never fall
    /// below `rulingCopyResidual` of it, while a cell's copy (background, or the ruling without
    /// the cell) differs from it by the cell itself. 0 = off.
    public var rulingCopyNoiseMultiple: Double = 1.2
    /// The most of the window's own structure a copy matched by the noise rule
    /// (`rulingCopyNoiseMultiple`) may differ from it by (0 ... 1).
    public var rulingCopyNoiseStructure: Double = 0.6
    /// How much flatter than a copy a candidate's window may be and still match it: the copy's
    /// structure is scaled down by the gain that fits best, to 1 / this at the most
    /// (`CopyResidual.flattened`). Veiling glare lifts the dark strokes of the ruling under it,
    /// so a crossing in the glare is a flattened copy of the crossings outside; a copy is never
    /// scaled up, as a cell adds structure to its window. The noise rule
    /// (`rulingCopyNoiseMultiple`) reads the residual unscaled. 1 = off.
    public var rulingCopyMaxFlattening: Double = 2
    /// A candidate that passed the boundary test is dropped when the same disc a few radii
    /// further along a ruling direction (`lineStep`: 2.2 ... 4 radii, whole pixels) differs
    /// from it by less than this many times the difference noise alone would give
    /// (`lineShiftResidual`, the disc against the mean of its two shifted copies, over 1.5
    /// times `sampleNoise` squared): a stretch of line (the gaps between a sharp triple line's
    /// strokes) looks the same further along, a cell on the line does not. 0 = off. (Against
    /// the larger of the two one-sided differences until the twelfth session: at a sharp,
    /// dark triple line a step's sub-pixel stray across it alone gave several times the noise,
    /// and 12 spots between its strokes passed on one blank control of a fourth independent
    /// draw, 6 now.)
    public var lineShiftRatio: Double = 5
    /// When a candidate fails the boundary test where centre voting moved it, it is tested
    /// where the detector put it, and kept there when it passes with at least this share of
    /// the sectors showing its rim (0 ... 1; 0 = off): a vote can pull a centre off its cell,
    /// towards a touching neighbour or a line's edge.
    public var keepUnvotedCoverage: Double = 0.9375
    /// A candidate the vote moved more than a quarter radius that the boundary test drops
    /// there (and at its rim's centre) is tested in full once more where the detector put it,
    /// when its rim shows there from `keepUnvotedCoverage` of the sectors: `keepUnvotedCoverage`
    /// alone goes back only when the rim fails, not when a later step does (a scattered rim,
    /// no dark rim, a stretch of line). A grey disc in a light halo whose radius the
    /// detector underestimated has its halo vote a ring round its centre, and the vote strays
    /// to it. (Twenty-third session: over eleven synthetic sets +24 cells, +1 false detection.)
    public var unvotedRetest = true
    /// With a ruling found, a candidate on one of its lines (`crossingLineContrast` or more of
    /// removed line at its centre) that fails the boundary test only on its grid-aligned share
    /// is tested again with the line subtracted (`lineSubtractedEvidence`: the disc minus the
    /// same disc 2.7 ... 4 radii along the line), and kept when its rim shows there and no cell
    /// does at those shifted places (whose copy would show as a ghost). On a line, the debris
    /// rule compares the interior with the line's along it, not with the open background: a
    /// clear cell on a dark line is as dark as the line. (Cells inside triple lines; the
    /// Goldens +4 cells, +1 false detection; the independent synthetic set +20, +7, blank
    /// controls 21 -> 20; the cellqa synthetic set +46, +19.)
    public var lineSubtraction: Bool = true
    /// With a ruling found, a candidate on one of its lines (`crossingLineContrast` or more of
    /// removed line at its centre) votes for its centre (`voteCentres`) on the image minus the
    /// mean of its two copies a whole pixel step of 2.7 ... 4 radii either way along that line
    /// (the ruling direction whose line is the stronger there): the line's two edges are as
    /// strong as a rim and vote along the same gradient lines as the rim's sides across the
    /// line, so a cell on a line was found off its centre, outside the matching radius (about
    /// a third of the false detections of the independent draws lie within a radius of a
    /// missed cell). A copy a few radii along a straight line holds the same line and none of
    /// the cell. Where such a candidate fails the boundary test by at most two sectors (a
    /// blurred line whose edges made up part of the rim on the image), it is tested again where
    /// the plain vote puts it, if that is within half its radius. (Sixteenth session: the six
    /// independent draws +62 cells, -8 false detections, F1 0.9434 -> 0.9449, blank controls
    /// 17 -> 18; `cellqa synth` main 0.9790 -> 0.9813; the Goldens 0.9882 either way; the
    /// gradients along the ruling normals left out of the vote instead, as the image-wide seed
    /// vote does: worse on four of the six draws.)
    public var lineSubtractedVotes: Bool = true
    /// With a ruling found, a candidate whose centre lies off the ruling's lines (removed line
    /// under half of `crossingLineContrast`) votes for its centre (`voteCentres`) without the
    /// pixels on the lines (removed line of `crossingLineContrast` or more) whose gradient lies
    /// within this angle (degrees) of a ruling normal; 0: every edge votes.
    /// Why: a line's edges are as strong as a rim or stronger, and beside a faint cell they
    /// outvote its rim: the centre went 4-6 px towards the line, and the steps after the vote
    /// dropped the cell (a tenth of the third generator's missed cells, which a tuned
    /// HoughCircles finds: `scripts/hough-reference.py`). A rim off the lines keeps all its
    /// votes. A candidate centred on a line, or inside a triple line's band, has its own rim
    /// on the line: it votes with every edge (and with the line subtracted,
    /// `lineSubtractedVotes`, where it lies on one line).
    /// Thirty-eighth session, against every edge voting: third generator 0.9449 -> 0.9487,
    /// independent 0.9561 -> 0.9564, seed 4242 0.9423 -> 0.9435, fourth generator 0.9497 ->
    /// 0.9503 and 0.9366 -> 0.9386, fifth 0.8710 -> 0.8713, 0.8907 -> 0.8903 and 0.8776 ->
    /// 0.8785, the Goldens 0.9890 -> 0.9892, `cellqa synth` main 0.9846 -> 0.9844 and its JPEG
    /// q60 set 0.9919 -> 0.9917 (+2 false detections each); blank controls one detection more
    /// on three sets (third generator 25 -> 26, fourth 5 -> 6 and 11 -> 12), the same on the
    /// rest. Silencing for every candidate gained more on the third generator (0.9512) but
    /// lost three Golden cells inside a triple line's band; every direction silenced, on the
    /// lines or not, was worse on five of nine sets (the sixteenth session found the same as a
    /// replacement for the line subtraction); half the line level was worse on all five sets
    /// tried; 6 / 10 / 24 / 35 degrees no better than 16.
    public var quietRulingEdgesDeg: Double = 16
    /// With a ruling found, a candidate on one of its lines that passed the boundary test on
    /// its raw rim is tested again with the line subtracted (as for `lineSubtraction`, using
    /// only the sides whose shifted disc reaches no other candidate that passed), and dropped
    /// when its rim shows along neither ruling direction: the edges of a line's own strokes
    /// (between a sharp triple line's strokes, at T-junctions) made that rim. (The independent
    /// synthetic set -5 cells, -33 false detections, blank controls 20 -> 7; the Goldens -1
    /// false detection; the cellqa synthetic sets -3 cells, -6 false detections.)
    public var dropLineResidue: Bool = true
    /// With a ruling found, a candidate the crossing test drops (`crossingLineContrast`: on a
    /// crossing of two lines, of the lines' polarity) is kept when its rim shows with each of
    /// the two lines subtracted in turn (as for `dropLineResidue`, from the sides free of
    /// other candidates): a clear cell on a crossing is darkened by both lines; what line
    /// removal leaves of a crossing shows only the other line's edges. (The independent
    /// synthetic set +12 cells, no false detection more; the Goldens +1, -1; the cellqa
    /// synthetic set +3, no false detection more.)
    public var cellsOnCrossings: Bool = true
    /// With a ruling found, a candidate the crossing test drops is also kept when its rim
    /// shows in all four quadrants between the two lines (`showsRimBetweenLines`: its darkest
    /// point at 0.75 ... 1.2 radii this much below the points inside and outside it, in log
    /// luminance). A crossing's residue is open background between the lines; a cell on a
    /// single line between neighbours in a row also fails the crossing test, its neighbours'
    /// rims reading as a second line. 0 = off. (Sixteenth session: the six independent draws
    /// +14 cells, +4 false detections, each draw +0.0002 ... +0.0003 or unchanged; `cellqa
    /// synth` +0.0002, q60 +0.0001, the Goldens unchanged; 0.06 / 0.15: +0.0003 / +0.0002;
    /// three quadrants of four: +31 / +39 cells for +10 / +13 false detections and a
    /// blank-control detection more.)
    public var crossingRimDepth: Double = 0.1
    /// A candidate of at most this radius (image pixels) one sector short of
    /// `minEdgeCoverage` at the working scale is tested again on the full-resolution image
    /// (`FineRimTest`): a small cell's rim is too few working pixels round for every sector to
    /// show it. 0: off; no effect at working scale 1. (The independent synthetic set +47
    /// cells, +7 false detections; two further draws never tuned on +16, +2 and +20, +8; the
    /// Goldens +3, +2; the cellqa synthetic set +29, +6; its JPEG q60 set +1, +7;
    /// ldc-maxkudi +3, +2.)
    public var fineRimMaxRadiusPx: Double = 8
    /// The coverage `fineRimMaxRadiusPx`'s full-resolution test asks for (0 ... 1).
    public var fineRimCoverage: Double = 0.875
    /// ... and in how many of 16 sectors round the centre a point between 0.6 and 1.4 radii
    /// must be darker than the centre (0 ... 16): with more pixels, stray gradients face a
    /// spot between cells in a clump from most sides too, but only a cell has a dark ring
    /// all round (`darkRingSectors`).
    public var fineRimDarkSectors: Int = 16
    /// How much darker than the centre such a point must be, log luminance (0.02: 2 %; 0:
    /// rounding alone can pass a uniform background). (0 -> 0.02: the JPEG q60 set 3 false
    /// detections fewer, nothing else changed.)
    public var fineRimRingDepth: Double = 0.02
    /// A candidate this many sectors of 16 short of `minEdgeCoverage` (0 = off) still passes
    /// the boundary test when its rim draws a round circle centred on it, dark all the way
    /// round (`BoundaryTest.showsRoundRim`; needs `rimCentringAgreement`). A clear cell in a
    /// clump shows its rim in 9-11 sectors at the working scale, a touching neighbour's rim
    /// leaving sectors without a gradient that faces it. (Seventeenth session, six independent
    /// draws: +43 cells, no false detection more, each draw up; 4 sectors +47, agreement 0.8125
    /// +45 / +1, circles up to 1.4 radii +44: the same within one or two.)
    public var roundRimShortfall: Int = 3
    /// A stained candidate that fails the boundary test with its stain-map boundary in at
    /// least this share of the 16 sectors is tested again beside the candidates that passed:
    /// the sectors facing a touching stained neighbour into which its stain runs on count as
    /// boundary (`StainEvidence.clumpCoverage`). Dead cells in a clump of dead cells meet
    /// without a boundary between them. 0 = off. (Twenty-ninth session: the seven independent
    /// draws +115 cells, +27 false detections, none down; the third generator's three draws
    /// +4 / +2, the fourth's +3 / +6, Goldens +1, cellqa synth +7, q60 +2, real folders
    /// unchanged; asked beside every candidate rather than those that passed, +141 / +47 with
    /// two draws down.)
    public var stainClumpCoverage: Double = 0.3125
    /// Candidates are tested and vote at a radius of at least this fraction of the smallest
    /// cell radius (0 ... 1).
    public var candidateRadiusFloor: Double = 1
    /// Threshold detector: smallest circularity 4 pi A / P^2 (0 ... 1).
    public var minCircularity: Double = 0.3
    /// Threshold detector: smallest solidity A / convex hull area (0 ... 1).
    public var minSolidity: Double = 0.7

    // MARK: classify
    /// Trypan-blue hue band, degrees.
    public var hueMinDeg: Double = 200
    public var hueMaxDeg: Double = 260
    /// Floor of the adaptive saturation threshold for "blue" (0 ... 1).
    public var minDeadSaturation: Double = 0.12
    /// A pixel whose channels differ by more than this fraction of full scale (max - min) is
    /// coloured; an image with fewer than 1% coloured pixels is treated as greyscale (no hue:
    /// the intensity rule decides live/dead, and the debris rule is off). Low on purpose: a
    /// colour camera's blank control or a grey-lit sample is still a colour image, while a
    /// greyscale file has exactly equal channels. (0.01, 3 levels, since the twentieth session:
    /// at 0.02 a colour image of low chroma, a faint tint or a JPEG of a grey-lit sample with
    /// 45-99 % of its pixels 3-5 levels off grey, was taken for greyscale and lost the debris
    /// rule: the third generator's two draws 0.9492 -> 0.9508 and 0.9337 -> 0.9360, 22 fewer
    /// detections on one blank control; the six independent draws 0.9483 -> 0.9485.)
    public var greyscaleSaturation: Double = 0.01
    /// Greyscale rule: a cell is dead when its interior is darker than the background by this
    /// Weber contrast and has no bright refractile centre.
    public var deadDarkContrast: Double = 0.12
    /// Greyscale rule: centre brighter than the background by this Weber contrast = refractile.
    public var refractileContrast: Double = 0.08
    /// Colour images: a candidate whose interior is darker than the background by this Weber
    /// contrast, with no refractile centre and not blue, is debris and dropped
    /// (`isUnstainedDark`). 0 = keep every candidate.
    public var debrisDarkContrast: Double = 0.1
    /// Colour images: a dark candidate whose centre stands at least this much (Weber contrast)
    /// above its rim is a clear cell seen as a ring (dark rim, centre at background level, no
    /// refractile spot: slightly out of focus), not debris, which is dark throughout
    /// (`CellAppearance.ringContrast`). 0 = every dark unstained candidate is debris. (0.05
    /// rather than 0.1: a blurred live cell keeps only a faint lighter centre; recall +0.002 on
    /// the synthetic sets, the independent one included, with no more false detections.)
    public var clearRingContrast: Double = 0.05
    /// Colour images: a dark candidate whose centre stands at least this much (fraction of the
    /// background luminance) above its darkest one-pixel annulus, that annulus 0.4 r or more
    /// out, is a clear cell too (`clearRingDepth`): the ring found wherever the rim lies, which
    /// on a blurred small cell is well inside the detection's radius. Not asked of candidates
    /// on a ruling line, whose edges make a ring of any profile across it. 0 = off.
    /// (Independent draws -0.0001 ... +0.0063 of F1; 0.03 ... 0.06 the same within 0.001.)
    public var clearRingDepth: Double = 0.04
    /// The ring (`clearRingDepth`) does not make a candidate a clear cell when its
    /// half-contrast outline (`DiscEdge`) is ragged: fewer than this share of its 32 rays
    /// within 20 % of their median radius and lobes above `clearRingRaggedLobes`. The darker
    /// patches of mottled debris fake a ring; a cell's rim is round. 0 = off. (Twentieth
    /// session: a third generator's two draws 0.9465 -> 0.9487 and 0.9297 -> 0.9305, blank
    /// controls 47 -> 36 and 66 -> 62 detections; the six independent draws -8 cells,
    /// -18 false detections; 0.65 and 0.7 the same within 0.0003.)
    public var clearRingRaggedRoundness: Double = 0.6
    /// The outline's lobes (`DiscEdge.lobes`, fraction of its radius) above which an outline
    /// less round than `clearRingRaggedRoundness` is ragged.
    public var clearRingRaggedLobes: Double = 0.1
    /// Colour images: a candidate dark inside, not blue and without a clear ring, whose centre
    /// is bright (`refractileContrast`), is a live cell only when the circle fitted to its rim
    /// (`RimCircle`: the darkest point of each of 32 rays) holds at least this share of the
    /// rays; otherwise debris. A refractile cell's bright centre sits inside a round dark rim;
    /// the light gap between a triple line's strokes and the lighter spots of mottled debris
    /// sit inside no circle. 0 = off. (Twentieth session: at 0.6 a third generator's two
    /// draws 0.9487 -> 0.9492 and 0.9305 -> 0.9337, the six independent draws 0.9480 ->
    /// 0.9483, -20 false detections for -1 cell, their blank controls 18 -> 14 detections; with
    /// the greyscale fix after it, 0.5 / 0.6 / 0.7 / 0.75 / 0.8 / 0.85 / 0.9 gave the six draws
    /// 0.9483 / 0.9485 / 0.9486 / 0.9486 / 0.9487 / 0.9488 / 0.9487 and the third generator's
    /// second draw 0.9342 / 0.9360 / 0.9369 / 0.9373 / 0.9376 / 0.9375 / 0.9375, `cellqa synth`
    /// main 0.9835 down to 0.9833 from 0.85; a circle that does not settle instead,
    /// `RimCircle.agrees`, cost 21 cells of the six draws.)
    public var refractileRimShare: Double = 0.8
    /// Colour images: a dark candidate seen as a grey disc inside a bright halo is a clear cell
    /// a little out of focus, not debris, when this many of 16 sectors show the halo 1.05 ... 1.45 r
    /// out at least `haloContrast` above the background (1.8 ... 2.5 r out) and the disc's edge
    /// (0.55 ... 0.9 r) at least as far below it (`haloSectors`). Debris absorbs light and
    /// draws no halo. Asked of candidates on a ruling line too (nineteenth session), where the line hides a few sectors. 0 = off. (Eighteenth session:
    /// a third generator's live cells drawn so were all dropped as debris; with the rule its
    /// two draws' F1 0.889 -> 0.937 and 0.891 -> 0.921; the six independent draws +2 cells and
    /// the Goldens, `cellqa synth` and the real-dev folders unchanged. 12 sectors +1.8 / +2.8
    /// points instead of +4.7 / +3.0; without the disc's edge asked, five dark specks in open
    /// squares passed on the six draws.)
    public var haloSectors: Int = 10
    /// The halo's (and the disc edge's) contrast against the background for `haloSectors`,
    /// as a fraction of the background's linear luminance.
    public var haloContrast: Double = 0.03
    /// A halo sector whose far annulus (1.8 ... 2.5 r) lies this fraction below the background
    /// is blocked (a ruling line or a neighbour crosses it), and the halo is also counted over
    /// the open sectors, scaled to 16 (`haloSectors`), when at least `haloMinOpenSectors` are
    /// open. (Twenty-first session: the third generator's draws +9 and +4 cells, +1 false
    /// detection; no other set moved. With 10 open sectors asked, +15 and +13 cells for +4 and
    /// +2 false detections, and the default-seed draw +2 false detections.) 0 = off.
    public var haloBlockedDarkness: Double = 0.12
    /// Open sectors the scaled halo count needs (`haloBlockedDarkness`).
    public var haloMinOpenSectors: Int = 12
    /// A dark disc the debris rule dropped that touches kept cells (`TouchingNeighbours`) is
    /// asked for its halo again over the sectors they leave free, when at least this many of 16
    /// are free, the count scaled to 16 (`haloSectors`): in a clump of grey discs only the
    /// clump's outside shows a halo; asked again while a pass keeps one, up to three passes.
    /// 0 = off. (Thirtieth session: the fourth generator's seed-2 draw +10 cells, the third
    /// generator's draws +3 and +4, the default-seed independent draw +1 false detection; 5
    /// free sectors +1 cell more, 11 only +4 cells in all.)
    public var haloClumpOpenSectors: Int = 8
    /// Colour images: a dark candidate whose half-contrast edge (`DiscEdge`) is round, this
    /// share of 32 rays within 20 % of its median radius, is a live cell far out of focus
    /// (a grey disc: no bright centre, no ring, no halo), not debris, when that radius is at
    /// least `defocusedDiscMinRadius` of `minRadiusPx`. Not asked of candidates on a ruling
    /// line. 0 = off.
    public var defocusedDiscRoundness: Double = 0.9
    /// The smallest half-contrast radius of a defocused disc (`defocusedDiscRoundness`), as a
    /// fraction of `minRadiusPx`: blur leaves that edge where the disc's was, and dark specks
    /// smaller than a cell are debris however round.
    public var defocusedDiscMinRadius: Double = 0.9
    /// The most a defocused disc's outline may show of lobes or corners (`DiscEdge.lobes`:
    /// its largest harmonic 3 ... 8, fraction of its radius; `defocusedDiscRoundness`).
    public var defocusedDiscMaxLobes: Double = 0.04
    /// The widest a defocused disc's edge may rise, 10 % to 90 % of the way to the
    /// background, as a fraction of its half-contrast radius (`DiscEdge.edgeWidth`;
    /// `defocusedDiscRoundness`): a wider rise has no plateau inside, a speck smaller than
    /// its blur.
    public var defocusedDiscMaxEdgeWidth: Double = 1.15
    /// Colour images: a candidate called live whose radius no step measured above this many
    /// smallest cell radii (1: it stayed at the floor every candidate is raised to), darker
    /// inside than the background without a clear ring (`clearRingContrast`), is a dark
    /// speck, debris, whatever the debris rule's exemptions (`isDarkSpeck`). 0 = off.
    /// (Thirty-second session: the fourth generator's three draws 9, 15 and 16 false
    /// detections fewer, the third generator's 3, 6 and 5, the Goldens 1, no cell lost; the
    /// independent draws 17 cells and 4 false detections fewer, each cell labelled under the
    /// 5 px floor, r 3.2-4.4 px.)
    public var darkSpeckMaxRadius: Double = 1.0
    /// Greyscale images too: a candidate called live (dark but not dark enough to be called
    /// dead) that `darkSpeckMaxRadius` calls a dark speck is dropped. (Thirty-fifth session:
    /// the fourth generator's three draws 5, 2 and 3 false detections fewer, ldc-maxkudi one;
    /// no cell lost, no other set moved.)
    public var greyDarkSpecks: Bool = true
    /// Greyscale images: a candidate called dead (a dark disc: no hue tells dye from dust)
    /// whose half-contrast edge (`DiscEdge`) lies closer than this fraction of `minRadiusPx`
    /// is a dark speck blurred to a cell's size, and is dropped. Blur leaves a disc's
    /// half-contrast edge where the disc's was, and moves the gradient-weighted boundary
    /// (`minEdgeRadiusFraction`) outwards. (Twenty-seventh session: `cellqa synth` main 13 false
    /// detections fewer, the fourth generator's three draws 13, 12 and 15 fewer for one cell;
    /// no other generator draws greyscale views. Off in the ldc-maxkudi folder config, where
    /// it took 10 of its real dead cells.) 0 = off.
    public var greyDiscMinRadius: Double = 0.9
    /// Colour images: a candidate called live, off the ruling lines (`Candidate.onRulingLine`),
    /// whose hue lies in the blue band with at least this share of the image's dead saturation
    /// threshold is a dead cell that took up little dye (`faintStain`) when it is either a
    /// disc the debris rule would judge (dark, no clear ring) whose half-contrast edge is a
    /// cell's (`defocusedDiscMinRadius`), kept and called dead unless it overlaps another
    /// detection, or darker than the background without a refractile centre, called dead.
    /// (Twenty-eighth session: the fourth generator's three draws +42 / +34 / +55 cells for
    /// +9 / +16 / +6 false detections, live/dead accuracy 0.963 / 0.967 / 0.970 → 0.984 /
    /// 0.979 / 0.991; the seven independent draws +28 cells, +6 false detections; every other
    /// set within 2 cells and 2 false detections, no blank control changed.) 0 = off.
    public var faintStainShare: Double = 0.5
    /// `faintStainShare` is asked only in an image with at least this many cells called dead
    /// on their stain: a faint stain is read against the dye the image shows (a blank
    /// control's grey debris takes a blue cast from noise and white balance).
    public var faintStainMinDeadCells: Int = 3

    // MARK: nms / count
    /// Two detections overlapping by more than this circle IoU are one cell.
    public var nmsIoU: Double = 0.2
    /// Two detections whose centres are closer than this fraction of the larger radius are one
    /// cell, whatever their IoU.
    public var nmsMinCentreDistance: Double = 0.8
    /// Duplicate suppression ranks first the candidates centred on their cell: those whose
    /// rays agree on one rim circle (`RimCircle.agrees`; measured with `rimCentringAgreement`
    /// on) and stained ones (a dead cell's filled disc draws no rim circle, so among dead cells
    /// the ranking stays by coverage). In a clump, a candidate between two cells or half a
    /// radius off one sees rim in as many sectors as the cell's own, often with a larger
    /// radius that then suppresses the cell. (Seventeenth session, six independent draws:
    /// +33 cells, -24 false detections, F1 up on each; the rim circle's looser test, most rays
    /// on one circle, +24 / -10; agreement without the stain exception +47 / -5, but two draws
    /// down, the off-centre candidates on blurred dead cells now ranked first. Off in the
    /// real-dev folder configs, which do not vote: see docs/pipeline.md.)
    public var nmsCentredFirst = true
    /// A kept detection whose circle spans two that duplicate suppression dropped for it, each
    /// centred on its cell and neither larger, with its own centre between theirs, gives way
    /// to the two when the flattened log luminance between their centres falls at least this
    /// far below the darker of them: the rims where two touching cells meet
    /// (`splitSpanningPairs`, `junctionDip`). Needs `nmsCentredFirst` (which marks the
    /// centred). 0 = off. (Twenty-fourth session: eleven synthetic sets +53 cells for no false
    /// detection more; without the dip test +79 cells for +104 false detections on the six
    /// independent draws, big dead cells split in two. See docs/history.md.)
    public var nmsSpanningPairDip: Double = 0.3
    /// MAD cut for outlier squares (robust z).
    public var madCut: Double = 2.5
    /// Large squares counted (row, column), default the four corners.
    public var countedSquares: [LargeSquare] = LargeSquare.corners
    /// Dilution factor of the sample.
    public var dilution: Double = 1
    /// The factors `dilution` may take (a config file's value, `cellqa count --dilution`).
    public static let dilutionRange: ClosedRange<Double> = 1e-6...1e9
    /// Flag "overcrowded" above this many cells per large square.
    public var overcrowdedPerSquare: Double = 300
    /// Flag "too-sparse" below this many cells per large square.
    public var sparsePerSquare: Double = 10
    /// A registered ruling's calibration is implausible, flagged "calibration-implausible" and
    /// given no concentration, when the detections' median diameter under it lies more than
    /// this factor outside `minDiameterUm ... maxDiameterUm` (`calibrationAgreesWithCellSizes`):
    /// a ruling registered at the wrong spacing. With `sizeFrom = calibration` the detections
    /// take their sizes from the calibration, and it cannot disagree. 0 = off. (Fifty-first
    /// session: on the 589 registered views of the 25 stand-in sets with 5 detections or
    /// more, median diameters of 6.2-28.8 µm under calibrations within 1 % of the labels';
    /// 3.2, 4.4 and 56.9 µm in the three registered at 0.21, 0.40 and 4.2 times their scale,
    /// which gave concentrations 25 times too high, on a blank control, and a twentieth.)
    public var calibrationCheckFactor: Double = 1.6
    /// Fewest detections `calibrationCheckFactor` judges by.
    public var calibrationCheckMinCells: Int = 10

    public init() {}
}

extension PipelineConfig {
    /// The cell radius range, image pixels, known before any ruling is looked for: through the
    /// configured calibration (`umPerPixel`) with `sizeFrom = calibration`, so that the working
    /// scale is chosen for it; otherwise `minRadiusPx ... maxRadiusPx`. (A registered ruling's
    /// calibration replaces it in the grid stage, at the working scale already chosen.)
    var radiusRangeBeforeRulingPx: (min: Double, max: Double) {
        guard sizeFrom == .calibration, umPerPixel > 0 else { return (minRadiusPx, max(maxRadiusPx, minRadiusPx)) }
        return calibratedRadiusRangePx(umPerPixel: umPerPixel)
    }

    /// The cell diameter range (`minDiameterUm ... maxDiameterUm`) as radii, image pixels, at a
    /// calibration, held to the range the pixel keys accept (0.5 ... 2000 px): an implausible
    /// calibration must not ask for blurs and windows larger than any image.
    func calibratedRadiusRangePx(umPerPixel: Double) -> (min: Double, max: Double) {
        func held(_ r: Double) -> Double { r.isFinite ? min(max(r, 0.5), 2000) : 2000 }
        return (held(minDiameterUm / 2 / umPerPixel), held(max(maxDiameterUm, minDiameterUm) / 2 / umPerPixel))
    }
}

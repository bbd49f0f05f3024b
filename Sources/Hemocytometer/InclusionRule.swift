extension NeubauerGeometry {
    /// The large square containing a chamber point (µm, origin at the top-left corner of the
    /// ruled area), or nil outside the ruled area.
    ///
    /// The counting rule "cells on the top or left border are counted, cells on the bottom
    /// or right border are not; a cell exactly on a line goes to the top/left square" is
    /// applied as half-open intervals [0, 1000), [1000, 2000), [2000, 3000) on each axis: a
    /// square owns its top and left borders and not its bottom and right ones. So a point
    /// exactly on a line shared by two squares belongs to the square of which that line is
    /// the top (or left) border, i.e. the square below (or to the right of) the line. The
    /// outer bottom and right edges (x or y == 3000) are the bottom/right border of the
    /// last squares and so are outside. Non-finite coordinates are outside.
    public static func largeSquare(containing p: Point) -> LargeSquare? {
        guard let column = largeSquareIndex(p.x), let row = largeSquareIndex(p.y) else { return nil }
        return LargeSquare(row: row, column: column)
    }

    /// Index 0...2 of the half-open 1000 µm interval holding `v` µm; nil outside [0, 3000).
    private static func largeSquareIndex(_ v: Double) -> Int? {
        guard v.isFinite, v >= 0, v < ruledAreaUm else { return nil }
        // Floor division is exact at the borders 1000 and 2000 (both representable).
        return min(Int((v / largeSquareUm).rounded(.down)), largeSquaresPerSide - 1)
    }
}

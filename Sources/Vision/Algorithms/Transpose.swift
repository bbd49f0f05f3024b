/// The plane with rows and columns swapped, in 32x32 tiles so both sides stay cache-friendly.
public func transposed(_ plane: Plane) -> Plane {
    let w = plane.width, h = plane.height
    var out = Plane(width: h, height: w)
    let tile = 32
    plane.data.withUnsafeBufferPointer { src in
        out.data.withUnsafeMutableBufferPointer { dst in
            var ty = 0
            while ty < h {
                var tx = 0
                let yEnd = min(ty + tile, h)
                while tx < w {
                    let xEnd = min(tx + tile, w)
                    for y in ty..<yEnd {
                        for x in tx..<xEnd { dst[x &* h &+ y] = src[y &* w &+ x] }
                    }
                    tx += tile
                }
                ty += tile
            }
        }
    }
    return out
}

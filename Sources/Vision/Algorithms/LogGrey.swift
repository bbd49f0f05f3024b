import Foundation

/// Log grey, log(R + 2G + B + 16), by grey value (0 ... 1020): contrast in ratios, as the
/// illumination scales the light; the 16 keeps black finite. Read through `logGreyOfPixel`.
let logGreyTable: [Float] = (0...1020).map { log(Float($0) + 16) }

/// `logGreyTable` (passed as `table`) of the pixel whose red sample is at `p` in interleaved
/// RGB `px`.
@inline(__always)
func logGreyOfPixel(_ px: UnsafeBufferPointer<UInt8>, at p: Int, table: UnsafeBufferPointer<Float>) -> Float {
    table[Int(px[p]) &+ 2 &* Int(px[p &+ 1]) &+ Int(px[p &+ 2])]
}

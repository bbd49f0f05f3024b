import ArgumentParser
import Harness
import Imaging

/// `cellqa bench decode`: how much the Swift decoding API costs over the C libraries.
struct BenchDecode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Time PNG (level 6) and JPEG (q90) decoding of a synthetic image: Swift API vs plain C."
    )

    @Option(help: "Decodes per format and decoder; the median is reported.")
    var iterations: Int = 30

    @Option(help: "Width of the synthetic test image in pixels.")
    var width: Int = 1920

    @Option(help: "Height of the synthetic test image in pixels.")
    var height: Int = 1080

    @Option(help: "Seed of the synthetic test image (same seed, same bytes).")
    var seed: UInt64 = 1

    func validate() throws {
        guard iterations >= 1, iterations <= 10_000 else { throw ValidationError("--iterations must be 1...10000") }
        guard (16...8192).contains(width), (16...8192).contains(height) else {
            throw ValidationError("--width and --height must be 16...8192")
        }
    }

    func run() throws {
        #if DEBUG
        print("note: debug build; measure with `swift build -c release` for meaningful numbers")
        #endif
        let image = Scene(width: width, height: height, seed: seed).render()
        let png = try image.pngData(compressionLevel: 6)
        let jpeg = try image.jpegData(quality: 90)
        print("image \(width)x\(height) RGB, seed \(seed); PNG level 6: \(megabytes(png.count)) MB, "
              + "JPEG q90: \(megabytes(jpeg.count)) MB; \(iterations) decodes each, interleaved")

        // Both paths must produce the same pixels, or the comparison is meaningless.
        guard let referencePNG = ReferenceDecoders.decodePNG(png), try Image.decode(png) == referencePNG,
              referencePNG == image else {
            throw ValidationError("PNG: Swift and C reference decodes differ")
        }
        guard let referenceJPEG = ReferenceDecoders.decodeJPEG(jpeg), try Image.decode(jpeg) == referenceJPEG else {
            throw ValidationError("JPEG: Swift and C reference decodes differ")
        }

        for (name, bytes, reference) in [("PNG", png, ReferenceDecoders.timePNG),
                                         ("JPEG", jpeg, ReferenceDecoders.timeJPEG)] {
            var samples = BenchSamples()
            for _ in 0..<iterations {
                // Interleaved so machine load drifts affect both decoders alike.
                try samples.time("swift") { _ = try Image.decode(bytes) }
                try samples.time("c") {
                    guard reference(bytes) else { throw ValidationError("\(name): C reference decode failed") }
                }
            }
            let swiftMedian = samples.median("swift"), cMedian = samples.median("c")
            let megapixels = Double(width * height) / 1e6
            print(name + String(repeating: " ", count: max(1, 6 - name.count))
                  + "Swift API \(format(swiftMedian)) ms (\(format(megapixels / swiftMedian * 1000)) MP/s)   "
                  + "C reference \(format(cMedian)) ms   ratio Swift/C \(format(swiftMedian / cMedian, digits: 3))")
        }
    }

    private func megabytes(_ count: Int) -> String { format(Double(count) / 1_000_000, digits: 2) }

    private func format(_ value: Double, digits: Int = 2) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        return "\(rounded)"
    }
}

extension BenchDecode {
    /// A microscope-like test scene: smooth illumination gradients, seeded sensor noise and
    /// shaded discs of several sizes, so both codecs see realistic entropy.
    struct Scene {
        var width: Int
        var height: Int
        var seed: UInt64

        func render() -> Image {
            var random = SplitMix64(seed: seed)
            let discs = (0..<120).map { _ in
                (x: Double(random.next() % UInt64(width)), y: Double(random.next() % UInt64(height)),
                 radius: 6 + Double(random.next() % 40), dark: random.next() % 3 == 0)
            }
            var pixels = [UInt8](repeating: 0, count: width * height * 3)
            let w = Double(width), h = Double(height)
            pixels.withUnsafeMutableBufferPointer { out in
                for y in 0..<height {
                    let fy = Double(y) / h
                    for x in 0..<width {
                        let fx = Double(x) / w
                        var r = 150 + 60 * fx - 30 * fy
                        var g = 160 + 40 * fy - 20 * fx
                        var b = 190 - 50 * fx * fy
                        for disc in discs where abs(Double(x) - disc.x) < disc.radius && abs(Double(y) - disc.y) < disc.radius {
                            let dx = Double(x) - disc.x, dy = Double(y) - disc.y
                            let d2 = (dx * dx + dy * dy) / (disc.radius * disc.radius)
                            if d2 < 1 {
                                let shade = disc.dark ? -90 * (1 - d2) : 40 * (1 - d2) - 50 * d2 * d2
                                r += shade; g += shade; b += disc.dark ? shade * 0.4 : shade
                            }
                        }
                        let noise = Double(Int(random.next() % 17) - 8)
                        let i = (y &* width &+ x) &* 3
                        out[i] = UInt8(clamping: Int(r + noise))
                        out[i &+ 1] = UInt8(clamping: Int(g + noise))
                        out[i &+ 2] = UInt8(clamping: Int(b + noise))
                    }
                }
            }
            return Image(width: width, height: height, pixels: pixels)
        }
    }
}

// swift-tools-version:6.0
import PackageDescription

// Data flows one way: Fixtures (dataset, labels) -> Imaging (decode) -> Vision (pipeline
// stages) -> Hemocytometer (counting math) -> Harness (metrics, reports, gates) -> cellqa.
let package = Package(
    name: "cellqa",
    products: [
        .executable(name: "cellqa", targets: ["cellqa"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // System libraries, found through pkg-config.
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"])]),
        .systemLibrary(name: "CJSONC", pkgConfig: "json-c", providers: [.apt(["libjson-c-dev"])]),

        // setjmp/longjmp error handling for libpng and libjpeg lives here, never in Swift frames.
        .target(name: "CCodecs", dependencies: ["CPNG", "CJPEG"]),

        .target(name: "Imaging", dependencies: ["CCodecs"]),
        .target(name: "JSON", dependencies: ["CJSONC"]),
        .target(name: "Fixtures", dependencies: ["JSON"]),
        .target(name: "Hemocytometer"),
        // Row kernels with eight-lane AVX, used only where the CPU has it (checked at run time;
        // the default target is four-lane SSE).
        .target(name: "CKernels"),
        // glibc malloc's thresholds, which the cellqa command sets for its image-sized planes,
        // and the trim that gives the workers' free memory back after a run.
        .target(name: "CMalloc"),
        .target(name: "Vision", dependencies: ["Imaging", "JSON", "Hemocytometer", "CKernels"]),
        .target(name: "Synth", dependencies: ["Imaging", "Fixtures", "JSON"]),
        .target(name: "Harness", dependencies: ["Imaging", "JSON", "Fixtures", "Vision", "Hemocytometer", "CMalloc"]),
        .executableTarget(
            name: "cellqa",
            dependencies: [
                "Imaging", "JSON", "Fixtures", "Vision", "Hemocytometer", "Synth", "Harness", "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // Fuzzing: LLVMFuzzerRunDriver is declared weak in CFuzzDriver so ordinary builds link;
        // scripts/fuzz builds cellqa-fuzz with -sanitize=fuzzer to get the real driver.
        .target(name: "CFuzzDriver"),
        .executableTarget(
            name: "cellqa-fuzz",
            dependencies: ["CFuzzDriver", "Imaging", "JSON", "Fixtures", "Vision", "Harness"]
        ),

        .testTarget(name: "ImagingTests", dependencies: ["Imaging"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "FixturesTests", dependencies: ["Fixtures", "JSON"]),
        .testTarget(name: "HemocytometerTests", dependencies: ["Hemocytometer"]),
        .testTarget(name: "VisionTests", dependencies: ["Vision", "Imaging", "Synth", "Fixtures", "JSON"]),
        .testTarget(name: "SynthTests", dependencies: ["Synth", "Imaging", "Fixtures"]),
        .testTarget(name: "HarnessTests", dependencies: ["Harness", "Fixtures", "Vision", "JSON", "Imaging"]),
        .testTarget(name: "CLITests", dependencies: ["cellqa", "Imaging", "JSON", "Harness"]),
        .testTarget(name: "HostileInputTests", dependencies: ["Imaging", "JSON", "Fixtures", "Vision", "Harness"]),
    ],
    swiftLanguageModes: [.v6]
)

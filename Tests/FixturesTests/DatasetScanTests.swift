import Fixtures
import Foundation
import Testing

private let validLabel = #"{"version": 1, "cells": [], "tags": ["t1"]}"#

/// Runs `body` with a fresh temporary directory, removing it afterwards.
private func withDirectory(_ body: (String) throws -> Void) throws {
    let root = try makeTemporaryDirectory()
    defer { removeTemporaryDirectory(root) }
    try body(root)
}

@Suite struct DatasetScanTests {
    @Test func pairsLabelsBesideImages() throws {
        try withDirectory { root in
            try write("png", to: "a.png", in: root)
            try write(validLabel, to: "a.json", in: root)
            try write("jpg", to: "sub/b.JPG", in: root)
            try write(validLabel, to: "sub/b.json", in: root)
            try write("jpeg", to: "c.jpeg", in: root)
            try write("text", to: "notes.txt", in: root)
            try write(#"{"gates": {"recall": 0.9}}"#, to: "acceptance.json", in: root)
            try write(#"[1, 2]"#, to: "baseline.json", in: root)
            try write("hidden", to: ".d.png", in: root)
            let dataset = try Dataset.scan(root: root)
            #expect(dataset.problems == [])
            #expect(dataset.fixtures.map(\.id) == ["a", "c", "sub/b"])
            let b = dataset.fixtures[2]
            #expect(b.relativeDirectory == "sub")
            #expect(b.imagePath == root + "/sub/b.JPG")
            #expect(b.imageRelativePath == "sub/b.JPG")
            #expect(b.labelPath == root + "/sub/b.json")
            #expect(b.labelRelativePath == "sub/b.json")
            #expect(b.tags == ["t1"])
            #expect(dataset.unlabelled.map(\.id) == ["c"])
            #expect(!dataset.fixtures[1].isLabelled)
        }
    }

    @Test func reportsOrphanLabelsBesideImages() throws {
        try withDirectory { root in
            try write("png", to: "a.png", in: root)
            try write(validLabel, to: "orphan.json", in: root)
            try write("{not json", to: "broken.json", in: root)
            let dataset = try Dataset.scan(root: root)
            #expect(dataset.problems.map(\.kind) == [.labelWithoutImage, .labelWithoutImage])
            #expect(dataset.problems.map(\.path) == [root + "/broken.json", root + "/orphan.json"])
            #expect(dataset.orphanLabels.map(\.id) == ["broken", "orphan"])
            #expect(dataset.fixtures.map(\.id) == ["a", "broken", "orphan"])
            #expect(dataset.problems[1].message.contains("has no image"))
        }
    }

    @Test func separateLabelsRootMirrorsSubPaths() throws {
        try withDirectory { base in
            let images = base + "/Goldens"
            let labels = base + "/TestLabels"
            try write("png", to: "x/g1.png", in: images)
            try write("png", to: "g2.png", in: images)
            try write("png", to: "y/g4.png", in: images)
            try write(validLabel, to: "x/g1.json", in: labels)
            try write(validLabel, to: "g2.json", in: labels)
            try write(validLabel, to: "x/g3.json", in: labels)
            try write(#"{"not": "a label"}"#, to: "x/g1.json", in: images)  // ignored: labels have their own root
            try write(validLabel, to: "g4.json", in: labels)  // wrong sub-path: does not pair with y/g4.png
            let dataset = try Dataset.scan(root: images, labelsRoot: labels + "/")
            #expect(dataset.labelsRoot == labels)
            #expect(dataset.fixtures.map(\.id) == ["g2", "g4", "x/g1", "x/g3", "y/g4"])
            #expect(dataset.fixtures.map(\.isLabelled) == [true, true, true, true, false])
            #expect(dataset.fixtures[2].labelPath == labels + "/x/g1.json")
            #expect(dataset.fixtures[2].imagePath == images + "/x/g1.png")
            #expect(dataset.problems.map(\.kind) == [.labelWithoutImage, .labelWithoutImage])
            #expect(dataset.problems.map(\.path) == [labels + "/g4.json", labels + "/x/g3.json"])
        }
    }

    @Test func duplicateStemsAreReported() throws {
        try withDirectory { root in
            try write("png", to: "a.png", in: root)
            try write("jpg", to: "a.jpg", in: root)
            try write(validLabel, to: "a.json", in: root)
            try write("png", to: "other/a.png", in: root)  // a different id: not a duplicate
            let dataset = try Dataset.scan(root: root)
            #expect(dataset.fixtures.map(\.id) == ["a", "other/a"])
            #expect(dataset.fixtures[0].imageRelativePath == "a.jpg")
            #expect(dataset.problems.count == 1)
            #expect(dataset.problems.first?.kind == .duplicateStem)
            #expect(dataset.problems.first?.path == root + "/a.png")
        }
    }

    @Test func duplicateLabelStemsInLabelsRoot() throws {
        try withDirectory { base in
            try write("png", to: "img/a.png", in: base)
            try write(validLabel, to: "lab/a.JSON", in: base)
            try write(validLabel, to: "lab/a.json", in: base)
            let dataset = try Dataset.scan(root: base + "/img", labelsRoot: base + "/lab")
            #expect(dataset.fixtures.map(\.labelRelativePath) == ["a.JSON"])
            #expect(dataset.problems.map(\.kind) == [.duplicateStem])
        }
    }

    @Test func symlinkLoopIsDetectedAndWalkFinishes() throws {
        try withDirectory { root in
            try write("png", to: "sub/a.png", in: root)
            try FileManager.default.createSymbolicLink(atPath: root + "/sub/loop", withDestinationPath: "..")
            try FileManager.default.createSymbolicLink(atPath: root + "/self", withDestinationPath: "self")
            let dataset = try Dataset.scan(root: root)
            #expect(dataset.fixtures.map(\.id) == ["sub/a"])
            #expect(dataset.problems.map(\.kind) == [.symlinkLoop, .symlinkLoop])
            #expect(dataset.problems.map(\.path) == [root + "/self", root + "/sub/loop"])
        }
    }

    @Test func repeatedDirectoryAndBrokenLinks() throws {
        try withDirectory { root in
            try write("png", to: "real/a.png", in: root)
            try FileManager.default.createSymbolicLink(atPath: root + "/alias", withDestinationPath: "real")
            try FileManager.default.createSymbolicLink(atPath: root + "/gone.png", withDestinationPath: "missing.png")
            let dataset = try Dataset.scan(root: root)
            #expect(dataset.fixtures.map(\.id) == ["alias/a"])
            #expect(dataset.problems.map(\.kind) == [.unreadable, .repeatedDirectory])
            #expect(dataset.problems.first?.message.hasPrefix("broken symbolic link") == true)
        }
    }

    @Test func imageFieldPairsAcrossStems() throws {
        try withDirectory { root in
            try write("png", to: "pics/photo 1.png", in: root)
            try write(#"{"version": 1, "image": "photo 1.png", "cells": []}"#, to: "pics/label-for-photo.json", in: root)
            try write(#"{"version": 1, "image": "../pics/photo 1.png", "cells": []}"#, to: "other/second.json", in: root)
            let dataset = try Dataset.scan(root: root)
            #expect(dataset.fixtures.map(\.id) == ["pics/photo 1"])
            // Both labels name the same image: the first in byte-wise path order wins.
            #expect(dataset.fixtures.first?.labelRelativePath == "other/second.json")
            #expect(dataset.problems.map(\.kind) == [.duplicateLabel])
            #expect(dataset.problems.first?.path == root + "/pics/label-for-photo.json")
        }
    }

    @Test func imageFieldMustStayInsideTheRoot() throws {
        try withDirectory { base in
            let root = base + "/data"
            try write("png", to: "outside.png", in: base)
            try write("png", to: "a.png", in: root)
            try write("png", to: "b.png", in: root)
            try FileManager.default.createSymbolicLink(atPath: root + "/link.png", withDestinationPath: base + "/outside.png")
            try write(#"{"version": 1, "image": "../outside.png", "cells": []}"#, to: "a.json", in: root)
            try write(#"{"version": 1, "image": "\#(base)/outside.png", "cells": []}"#, to: "b.json", in: root)
            try write(#"{"version": 1, "image": "link.png", "cells": []}"#, to: "c.json", in: root)
            try write(#"{"version": 1, "image": "nope.png", "cells": []}"#, to: "d.json", in: root)
            let dataset = try Dataset.scan(root: root)
            let references = dataset.problems.filter { $0.kind == .invalidImageReference }
            #expect(references.map(\.path) == ["a", "b", "c", "d"].map { root + "/\($0).json" })
            #expect(references[0].message.contains("leaves the dataset root"))
            #expect(references[1].message.contains("absolute path"))
            #expect(references[2].message.contains("outside the dataset root"))
            #expect(references[3].message.contains("is not an image of the dataset"))
            // The stem rule still pairs a.json and b.json; c and d have no image of their own.
            #expect(dataset.fixtures.filter(\.isLabelled).map(\.id) == ["a", "b", "c", "d"])
            #expect(dataset.orphanLabels.map(\.id) == ["c", "d"])
            #expect(dataset.problems.filter { $0.kind == .labelWithoutImage }.count == 2)
        }
    }

    @Test func byteWiseOrder() throws {
        try withDirectory { root in
            for name in ["é.png", "a.png", "B.png", "Z/x.png", "a0.png", "a-b.png"] { try write("p", to: name, in: root) }
            let dataset = try Dataset.scan(root: root)
            #expect(dataset.fixtures.map(\.id) == ["B", "Z/x", "a", "a-b", "a0", "é"])
        }
    }

    @Test func missingRootThrows() throws {
        #expect(throws: DatasetError.self) { try Dataset.scan(root: "/nonexistent-dataset-root") }
        try withDirectory { root in
            try write("x", to: "file", in: root)
            let error = #expect(throws: DatasetError.self) { try Dataset.scan(root: root + "/file") }
            #expect(error?.message == "the dataset root is not a directory")
            // A labels root is named as such, not taken for the dataset.
            let labels = #expect(throws: DatasetError.self) { try Dataset.scan(root: root, labelsRoot: root + "/nope") }
            #expect(labels?.message == "the labels root (--labels): No such file or directory")
            let labelsFile = #expect(throws: DatasetError.self) { try Dataset.scan(root: root, labelsRoot: root + "/file") }
            #expect(labelsFile?.message == "the labels root (--labels) is not a directory")
        }
    }

    // Permission bits do not stop root, so the case cannot be produced when tests run as root.
    @Test(.enabled(if: getuid() != 0, "skipped: running as root, which can read a mode-000 directory"))
    func unreadableDirectoryIsAProblem() throws {
        try withDirectory { root in
            try write("p", to: "locked/a.png", in: root)
            chmod(root + "/locked", 0)
            defer { chmod(root + "/locked", 0o755) }
            let dataset = try Dataset.scan(root: root)
            #expect(dataset.problems.map(\.kind) == [.unreadable])
        }
    }

    @Test func tagAndGlobFilters() throws {
        try withDirectory { root in
            try write("p", to: "dense/d1.png", in: root)
            try write(#"{"version": 1, "cells": [], "tags": ["dense", "real"]}"#, to: "dense/d1.json", in: root)
            try write("p", to: "sparse/s1.png", in: root)
            try write(#"{"version": 1, "cells": [], "tags": ["real"]}"#, to: "sparse/s1.json", in: root)
            try write("p", to: "sparse/deep/s2.jpg", in: root)
            let dataset = try Dataset.scan(root: root)
            #expect(dataset.filtered(tag: "dense").fixtures.map(\.id) == ["dense/d1"])
            #expect(dataset.filtered(tag: "real").fixtures.map(\.id) == ["dense/d1", "sparse/s1"])
            #expect(dataset.filtered(tag: "Real").fixtures.isEmpty)
            #expect(try dataset.filtered(glob: GlobPattern("sparse/*")).fixtures.map(\.id) == ["sparse/s1"])
            #expect(try dataset.filtered(glob: GlobPattern("sparse/**")).fixtures.map(\.id) == ["sparse/deep/s2", "sparse/s1"])
            #expect(try dataset.filtered(glob: GlobPattern("**/*.jpg")).fixtures.map(\.id) == ["sparse/deep/s2"])
            #expect(try dataset.filtered(glob: GlobPattern("*/?1")).fixtures.map(\.id) == ["dense/d1", "sparse/s1"])
        }
    }

    @Test func contentHashIsStableAndSensitive() throws {
        try withDirectory { base in
            for root in [base + "/one", base + "/two"] {
                try write("png-bytes", to: "a.png", in: root)
                try write(validLabel, to: "a.json", in: root)
                try write("jpg-bytes", to: "s/b.jpg", in: root)
            }
            let one = try Dataset.scan(root: base + "/one").contentHash()
            #expect(one.count == 16)
            #expect(try Dataset.scan(root: base + "/one").contentHash() == one)
            #expect(try Dataset.scan(root: base + "/two").contentHash() == one)  // location-independent
            try write("jpg-bytez", to: "s/b.jpg", in: base + "/two")
            #expect(try Dataset.scan(root: base + "/two").contentHash() != one)
            try FileManager.default.moveItem(atPath: base + "/one/s", toPath: base + "/one/t")
            #expect(try Dataset.scan(root: base + "/one").contentHash() != one)
        }
    }

    @Test func fnvMatchesReferenceVectors() {
        var hasher = FNV1a64()
        #expect(hasher.hexDigest == "cbf29ce484222325")
        hasher.update(Array("a".utf8))
        #expect(hasher.hexDigest == "af63dc4c8601ec8c")
        var foobar = FNV1a64()
        foobar.update(Array("foobar".utf8))
        #expect(foobar.hexDigest == "85944171f73967e8")
    }
}

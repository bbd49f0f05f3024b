import Testing
@testable import JSON

/// "Did you mean" for unknown keys: the known name a typo most likely meant, and none when
/// nothing is close or two names are equally close.
@Suite struct NearestNameTests {
    let keys = ["minRadiusPx", "maxRadiusPx", "nmsIoU", "madCut", "dilution", "minPrecision", "minRecall", "minF1"]

    @Test func aTypoFindsTheKeyMeant() {
        #expect(nearestName(to: "minRadiusPX", among: keys) == "minRadiusPx")  // letter case
        #expect(nearestName(to: "minRaduisPx", among: keys) == "minRadiusPx")  // two letters swapped
        #expect(nearestName(to: "minPrecison", among: keys) == "minPrecision") // one left out
        #expect(nearestName(to: "dillution", among: keys) == "dilution")       // one too many
        #expect(nearestName(to: "madcut", among: keys) == "madCut")
        #expect(nearestName(to: "minRecal", among: keys) == "minRecall")
    }

    @Test func nothingCloseOrTwoAsCloseIsNoSuggestion() {
        #expect(nearestName(to: "wavelength", among: keys) == nil)
        #expect(nearestName(to: "", among: keys) == nil)
        #expect(nearestName(to: "x", among: keys) == nil)
        // Two edits from both minRadiusPx and maxRadiusPx: no guess between them.
        #expect(nearestName(to: "mRadiusPx", among: keys) == nil)
        #expect(nearestName(to: "minRadiusPx", among: []) == nil)
        // A short name allows one edit only: "minF2" is minF1, "maxF2" is nothing.
        #expect(nearestName(to: "minF2", among: keys) == "minF1")
        #expect(nearestName(to: "maxF2", among: keys) == nil)
    }

    @Test func editDistanceCountsSwapsAsOneAndStopsPastTheLimit() {
        func d(_ a: String, _ b: String, _ limit: Int = 10) -> Int { editDistance(Array(a), Array(b), limit: limit) }
        #expect(d("abc", "abc") == 0)
        #expect(d("abc", "acb") == 1)
        #expect(d("kitten", "sitting") == 3)
        #expect(d("", "abc") == 3)
        #expect(d("abcdef", "uvwxyz", 2) == 3)
        #expect(d("a", "abcdefgh", 2) == 3)
    }

    @Test func theHintNamesTheKeyOrListsThemAll() {
        #expect(unknownNameHint("nmsIOU", among: keys) == ": did you mean \"nmsIoU\"?")
        #expect(unknownNameHint("wavelength", among: ["a", "b"]) == " (known keys: a, b)")
        #expect(unknownNameHint("wavelength", among: ["a", "b"], listLabel: "keys") == " (keys: a, b)")
        // Too many names for a message: where they are listed, when the caller says.
        let many = (0..<21).map { "key\($0)" }
        #expect(unknownNameHint("wavelength", among: many, longList: "see LIST") == " (see LIST)")
        #expect(unknownNameHint("wavelength", among: Array(many.prefix(20)), longList: "see LIST")
            == " (known keys: " + many.prefix(20).joined(separator: ", ") + ")")
        // A close name still wins over the listing.
        #expect(unknownNameHint("kye20", among: many, longList: "see LIST") == ": did you mean \"key20\"?")
    }
}

import Testing
import JSON

@Suite struct JSONObjectTests {
    @Test func keepsInsertionOrderAndReplacesInPlace() {
        var object: JSONObject = ["b": 1, "a": 2]
        object["c"] = 3
        object["b"] = 10
        #expect(object.keys == ["b", "a", "c"])
        #expect(object["b"] == 10)
        object["a"] = nil
        #expect(object.keys == ["b", "c"])
        #expect(object["c"] == 3)
        #expect(object["a"] == nil)
        #expect(object.count == 2)
    }

    @Test func builderHelpers() {
        var object = JSONObject().setting("x", 1).setting("y", "two")
        object.set("z", ifPresent: nil)
        object.set("w", ifPresent: .bool(false))
        #expect(object.keys == ["x", "y", "w"])
        #expect(Array(object.map(\.key)) == ["x", "y", "w"])
    }

    @Test func equalityIsOrderSensitive() {
        let first: JSONObject = ["a": 1, "b": 2]
        let second: JSONObject = ["b": 2, "a": 1]
        #expect(first != second)
        #expect(first == JSONObject([("a", 1), ("b", 2)]))
    }

    @Test func largeObjectsUseTheirIndexConsistently() throws {
        var object = JSONObject()
        for index in 0..<40 { object["k\(index)"] = .int(Int64(index)) }
        #expect(object["k39"] == 39)
        object["k5"] = 500
        object["k0"] = nil
        #expect(object.count == 39)
        #expect(object.keys.first == "k1")
        #expect(object["k5"] == 500)
        #expect(object["k39"] == 39)
        #expect(object["k0"] == nil)
        for index in 1..<30 { object["k\(index)"] = nil }
        #expect(object.keys == (30..<40).map { "k\($0)" })
        #expect(object["k35"] == 35)
        let text = JSONValue.object(object).serialized(pretty: false)
        #expect(try JSONValue.parse(text) == .object(object))
    }

    /// A parsed object is built without looking for each key among the earlier ones; small and
    /// large, it reads and changes like one built a key at a time.
    @Test(arguments: [0, 1, 12, 13, 40])
    func parsedObjectsBehaveLikeBuiltOnes(count: Int) throws {
        var built = JSONObject()
        for index in 0..<count { built["k\(index)"] = .int(Int64(index)) }
        guard case .object(var parsed) = try JSONValue.parse(JSONValue.object(built).serialized(pretty: false)) else {
            Issue.record("not an object"); return
        }
        #expect(parsed == built && parsed.keys == built.keys)
        for index in 0..<count { #expect(parsed["k\(index)"] == .int(Int64(index))) }
        #expect(parsed["k\(count)"] == nil)
        parsed["k0"] = "again"
        parsed["new"] = true
        #expect(parsed.count == max(count, 1) + 1 && parsed["new"] == true && parsed["k0"] == "again")
        if count > 1 { #expect(parsed.keys.first == "k0" && parsed.keys.last == "new") }
    }
}

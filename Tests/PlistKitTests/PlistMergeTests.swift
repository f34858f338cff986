import PlistKit
import Testing

@Suite struct PlistMergeTests {
    @Test func mergesDictionariesDeeplyAndReplacesScalarsAndArrays() {
        let base: PlistValue = ["API": ["URL": "https://dev", "Timeout": 30], "Hosts": ["a", "b"], "Name": "App"]
        let overlay: PlistValue = ["API": ["URL": "https://staging"], "Hosts": ["c"], "Extra": true]
        let merge = PlistMerge([.init(name: "Base.plist", value: base), .init(name: "Staging.plist", value: overlay)])
        #expect(merge.value == ["API": ["URL": "https://staging", "Timeout": 30], "Hosts": ["c"], "Name": "App", "Extra": true])
        #expect(merge.value.dictionaryValue?.keys == ["API", "Hosts", "Name", "Extra"])
    }

    @Test func recordsWhichSourceSetEveryLeaf() {
        let merge = PlistMerge([
            .init(name: "Base.plist", value: ["API": ["URL": "u1", "Timeout": 30], "Hosts": ["a"]]),
            .init(name: "Staging.plist", value: ["API": ["URL": "u2"]]),
            .init(name: "cli", value: ["Hosts": ["b", "c"]])
        ])
        let leaves = merge.leaves.map { "\($0.keyPath) \($0.source)" }
        #expect(leaves == ["API:URL Staging.plist", "API:Timeout Base.plist", "Hosts cli"])
        #expect(merge.source(of: "API:Timeout") == "Base.plist")
        #expect(merge.source(of: "Hosts:1") == "cli")
        #expect(merge.source(of: "API") == nil)
    }

    @Test func aDictionaryReplacingAScalarTakesItsSourceAndTheReverseToo() {
        let merge = PlistMerge([
            .init(name: "one", value: ["x": "scalar", "y": ["deep": 1]]),
            .init(name: "two", value: ["x": ["now": "dict"], "y": "flat"])
        ])
        #expect(merge.value == ["x": ["now": "dict"], "y": "flat"])
        #expect(merge.leaves.map(\.source) == ["two", "two"])
    }

    @Test func emptyDictionariesAreLeaves() {
        let merge = PlistMerge([.init(name: "a", value: ["e": .dictionary(PlistDictionary())])])
        #expect(merge.leaves.map { "\($0.keyPath)" } == ["e"])
    }
}

import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

@Suite struct JSONPlistTests {
    func read(_ text: String) throws -> PlistValue { try JSONPlistReader().read(Data(text.utf8)) }
    func write(_ value: PlistValue) throws -> String { String(decoding: try JSONPlistWriter().write(value), as: UTF8.self) }

    @Test func readsJSONKeepingKeyOrderAndIntegerVersusReal() throws {
        let value = try read(
            #"{"z": 1, "a": 1.0, "big": 18446744073709551615, "neg": -9223372036854775808, "e": 1e2, "s": "\u00e9\ud83d\ude80\n", "l": [true, false, {}], "x": []}"#
        )
        let expected: PlistValue = [
            "z": 1, "a": 1.0, "big": .integer(PlistInteger(UInt64.max)), "neg": .integer(PlistInteger(Int64.min)),
            "e": 100.0, "s": "é🚀\n", "l": [true, false, .dictionary(PlistDictionary())], "x": []
        ]
        #expect(value == expected)
        #expect(value.dictionaryValue?.keys == ["z", "a", "big", "neg", "e", "s", "l", "x"])
    }

    @Test func writesDatesAsISOStringsDataAsBase64AndRealsWithAPoint() throws {
        let value: PlistValue = [
            "when": .date(PlistDate(iso8601: "2024-01-31T12:00:00Z")!), "blob": .data(Data([1, 2, 3])),
            "ratio": 2.0, "count": 2, "quote": "say \"hi\"\t", "uid": .uid(3), "empty": []
        ]
        #expect(
            try write(value) == """
                {
                  "when": "2024-01-31T12:00:00Z",
                  "blob": "AQID",
                  "ratio": 2.0,
                  "count": 2,
                  "quote": "say \\"hi\\"\\t",
                  "uid": {"CF$UID": 3},
                  "empty": []
                }

                """)
    }

    @Test func roundTripsValuesJSONCanHold() throws {
        let value: PlistValue = ["a": [1, -2, 3.25, "x", true, ["k": "v"]], "u": "ü\u{1}"]
        #expect(try read(try write(value)) == value)
    }

    @Test func refusesNullNonFiniteRealsAndDuplicateKeysWithTheirPlace() throws {
        #expect(throws: Diagnostic.plist(.unrepresentable, "JSON null has no plist equivalent", at: .line(1, column: 11), keyPath: "a:1")) {
            try read(#"{"a": [1, null]}"#)
        }
        #expect(throws: Diagnostic.plist(.unrepresentable, "JSON cannot hold nan", keyPath: "r")) { try write(["r": .real(.nan)]) }
        #expect(throws: Diagnostic.plist(.malformed, "JSON: key 'a' appears twice in the same object", at: .line(2, column: 1))) {
            try read("{\"a\": 1,\n\"a\": 2}")
        }
    }

    @Test func malformedJSONGetsPositions() throws {
        let cases: [(String, String)] = [
            ("{\"a\" 1}", "1:6: JSON: expected ':' after key 'a', found '1'"),
            ("[1,", "1:4: JSON: unexpected end of file where a value was expected"),
            ("[01]", "1:2: JSON: numbers cannot start with 0"),
            ("\"\\ud800\"", "1:2: JSON: unpaired surrogate \\uD800"),
            ("[1] 2", "1:5: JSON: unexpected '2' after the value"),
            ("\"a\u{1}\"", "1:3: JSON: control character 0x01 in a string must be escaped")
        ]
        for (index, (text, message)) in cases.enumerated() {
            FuzzSeeds.export(Data(text.utf8), harness: "json-plist", name: "case-\(index)")
            do {
                _ = try read(text)
                Issue.record("\(text) was read")
            } catch let error as Diagnostic where error.is(PlistProblem.self) {
                #expect(error.description == message)
            }
        }
    }

    @Test func deepNestingStopsAtTheLimitWithoutExhaustingTheStack() {
        let text = String(repeating: "[", count: 300_000)
        #expect(throws: Diagnostic.plist(.limitExceeded, "nesting deeper than 512 levels", at: .line(1, column: 513))) {
            try read(text)
        }
    }

    @Test func braceInputThatIsNotJSONFallsBackToOpenStep() throws {
        let plist = try PropertyList(data: Data("{ a = (b, c); }".utf8))
        #expect(plist.format == .openStep)
        #expect(plist.value == ["a": ["b", "c"]])
        let json = try PropertyList(data: Data("{\"a\": [\"b\"]}".utf8))
        #expect(json.format == .json)
    }
}

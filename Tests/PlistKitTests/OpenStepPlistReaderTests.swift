import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

@Suite struct OpenStepPlistReaderTests {
    func read(_ text: String) throws -> PlistValue { try OpenStepPlistReader().read(Data(text.utf8)) }

    @Test func readsDictionariesArraysStringsAndData() throws {
        let value = try read(
            """
            // !$*UTF8*$!
            {
            \tarchiveVersion = 1;
            \t/* a comment */
            \tlist = (a, "b c", 'd', );
            \tquoted = "tab\\there \\"q\\" \\U00e9\\101";
            \tblob = <0001 ff>;
            \tnested = { path = ../x/y.swift; sign = "-"; };
            }
            """)
        let expected: PlistValue = [
            "archiveVersion": "1", "list": ["a", "b c", "d"], "quoted": "tab\there \"q\" éA",
            "blob": .data(Data([0, 1, 0xFF])), "nested": ["path": "../x/y.swift", "sign": "-"]
        ]
        #expect(value == expected)
    }

    @Test func readsSurrogatePairsWrittenAsTwoUnicodeEscapes() throws {
        #expect(try read(#""\UD83D\UDE80 \U00e9""#) == "🚀 é")
        expectDiagnostic(PlistProblem.self) { try read(#""\UD800x""#) }
    }

    @Test func readsStringsFilesWithoutBraces() throws {
        #expect(try read("/* Title */\n\"greeting\" = \"Hello\";\nfarewell = \"Bye\";\n") == ["greeting": "Hello", "farewell": "Bye"])
        #expect(try read(" \n\t") == .dictionary(PlistDictionary()))
    }

    @Test func readsUTF16StringsFilesWithAByteOrderMark() throws {
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in "\"k\" = \"ü\";".utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(try OpenStepPlistReader().read(Data(bytes)) == ["k": "ü"])
    }

    @Test func keepsTheByteRangeOfEveryValue() throws {
        let text = "{ a = \"quoted value\"; b = (x, y); c = plain; }"
        let root = try OpenStepPlistReader().readDocument(Data(text.utf8))
        let bytes = Array(text.utf8)
        func source(_ path: PlistKeyPath) -> String? {
            root.node(at: path).map { String(decoding: bytes[$0.range], as: UTF8.self) }
        }
        #expect(source("a") == "\"quoted value\"")
        #expect(source("b") == "(x, y)")
        #expect(source("b:1") == "y")
        #expect(source("c") == "plain")
        #expect(root.range == 0..<bytes.count)
    }

    @Test(Fixtures.enabled) func buildSettingValuesInRealProjectsPointAtTheirExactBytes() throws {
        for file in Fixtures.files(in: "pbxproj") {
            let data = try Data(contentsOf: file)
            let bytes = Array(data)
            let root = try OpenStepPlistReader().readDocument(data)
            guard case .dictionary(let objects)? = root.node(at: "objects")?.kind else {
                Issue.record("no objects in \(file.lastPathComponent)")
                continue
            }
            var checked = 0
            for pair in objects {
                guard let setting = pair.value.node(at: "buildSettings:PRODUCT_BUNDLE_IDENTIFIER"),
                    case .string(let identifier, let quoted) = setting.kind
                else { continue }
                let source = String(decoding: bytes[setting.range], as: UTF8.self)
                #expect(source == (quoted ? "\"\(identifier)\"" : identifier))
                checked += 1
            }
            #expect(checked > 0)
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var text: String
        var error: String
        var testDescription: String { name }
    }

    static let malformed: [Case] = [
        Case(name: "missing semicolon", text: "{ a = b }", error: "1:9: expected ';' after the value of 'a', found '}'"),
        Case(name: "missing equals", text: "{ a b; }", error: "1:5: expected '=' after key 'a', found 'b'"),
        Case(name: "unterminated dictionary", text: "{ a = b;", error: "1:1: unterminated dictionary (missing '}')"),
        Case(name: "unterminated array", text: "(a, b", error: "1:1: unterminated array (missing ')')"),
        Case(name: "unterminated string", text: "{ a = \"open; }", error: "1:7: unterminated quoted string"),
        Case(name: "unterminated comment", text: "{ /* never closed", error: "1:3: unterminated /* comment"),
        Case(name: "odd hex digits", text: "<abc>", error: "1:1: <data> has an odd number of hexadecimal digits"),
        Case(name: "bad hex digit", text: "<zz>", error: "1:2: 'z' is not a hexadecimal digit in <data>"),
        Case(name: "duplicate key", text: "{ a = 1; a = 2; }", error: "1:10: key 'a' appears twice in the same dictionary"),
        Case(name: "dictionary key", text: "{ {x=y;} = 1; }", error: "1:3: dictionary keys must be strings"),
        Case(name: "garbage after root", text: "(a) (b)", error: "1:5: unexpected '(' after the root value"),
        Case(name: "array separator", text: "(a b)", error: "1:4: expected ',' or ')' in an array, found 'b'"),
        Case(name: "unexpected character", text: "{ a = #; }", error: "1:7: unexpected '#' where a value was expected")
    ]

    @Test(arguments: malformed)
    func malformedOpenStepGetsAnExactError(_ testCase: Case) {
        FuzzSeeds.export(Data(testCase.text.utf8), harness: "openstep-plist", name: testCase.name)
        #expect(throws: Error.self) { try read(testCase.text) }
        do { _ = try read(testCase.text) } catch let error as Diagnostic where error.is(PlistProblem.self) {
            #expect(error.description == testCase.error)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func deepNestingStopsAtTheLimit() {
        let text = String(repeating: "(", count: 300_000)
        #expect(throws: Diagnostic.plist(.limitExceeded, "nesting deeper than 512 levels", at: .line(1, column: 513))) {
            try read(text)
        }
    }
}

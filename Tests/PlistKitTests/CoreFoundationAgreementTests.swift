import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// The reader fixes `PlutilDifferentialTests` found: input we read and Core Foundation refuses
/// now gets one exact error, and input Core Foundation reads that we refused now reads.
@Suite struct CoreFoundationAgreementTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var bytes: Data
        var error: String
        var testDescription: String { name }

        init(_ name: String, _ text: String, _ error: String) {
            self.init(name, Data(text.utf8), error)
        }

        init(_ name: String, _ bytes: Data, _ error: String) {
            self.name = name
            self.bytes = bytes
            self.error = error
        }
    }

    static let prolog = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"

    static let refused: [Case] = [
        Case("empty file", Data(), "byte 0: the file is empty; a property list needs at least a value"),
        Case("UTF-8 byte-order mark alone", Data([0xEF, 0xBB, 0xBF]), "byte 3: the file holds only a byte-order mark and no value"),
        Case("UTF-16 byte-order mark alone", Data([0xFF, 0xFE]), "byte 2: the file holds only a byte-order mark and no value"),
        Case(
            "UTF-32 text", Data([0xFF, 0xFE, 0, 0, 0x7B, 0, 0, 0, 0x7D, 0, 0, 0]),
            "byte 0: UTF-32 text (it starts with a UTF-32 byte-order mark) is not supported; save it as UTF-8"),
        Case(
            "UTF-16 XML without a byte-order mark",
            Data("<?xml version=\"1.0\"?><plist><true/></plist>".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }),
            "byte 1: UTF-16 text without a byte-order mark is not supported; save it as UTF-8"),
        Case("comment inside a string", prolog + "<plist><string>a<!-- c -->b</string></plist>", "2:27: a comment inside <string>"),
        Case(
            "processing instruction inside an integer", prolog + "<plist><integer>1<?pi x?></integer></plist>",
            "2:26: a processing instruction inside <integer>"),
        Case(
            "CDATA inside an integer", prolog + "<plist><integer><![CDATA[42]]></integer></plist>",
            "2:31: a CDATA section inside <integer>; only <string>, <key> and <real> may hold one"),
        Case(
            "CDATA inside data", prolog + "<plist><data><![CDATA[AAEC]]></data></plist>",
            "2:30: a CDATA section inside <data>; only <string>, <key> and <real> may hold one"),
        Case(
            "element with a namespace prefix", prolog + "<plist><x:string xmlns:x=\"urn:x\">a</x:string></plist>",
            "2:33: unknown element <x:string>"),
        Case("white space inside true", prolog + "<plist><true> </true></plist>", "2:22: <true/> must be empty"),
        Case("newline inside false", prolog + "<plist><false>\n</false></plist>", "3:9: <false/> must be empty"),
        Case(
            "white space after an integer", prolog + "<plist><integer>12 </integer></plist>",
            "2:30: white space after the value in <integer>"),
        Case("white space after a real", prolog + "<plist><real>2.5\n</real></plist>", "3:8: white space after the value in <real>"),
        Case(
            "white space before a date", prolog + "<plist><date> 2024-01-01T00:00:00Z</date></plist>",
            "2:42: white space around the value in <date>"),
        Case("signed nan", prolog + "<plist><real>-nan</real></plist>", "2:25: '-nan' is not a real number"),
        Case(
            "date without a time", prolog + "<plist><date>2024-01-01</date></plist>",
            "2:31: '2024-01-01' is not a date of the form YYYY-MM-DDTHH:MM:SSZ"),
        Case(
            "date with a fraction of a second", prolog + "<plist><date>2024-01-01T00:00:00.5Z</date></plist>",
            "2:43: '2024-01-01T00:00:00.5Z' is not a date of the form YYYY-MM-DDTHH:MM:SSZ"),
        Case(
            "date without Z", prolog + "<plist><date>2024-01-01T00:00:00</date></plist>",
            "2:40: '2024-01-01T00:00:00' is not a date of the form YYYY-MM-DDTHH:MM:SSZ"),
        Case(
            "base64 without padding", prolog + "<plist><data>AAECAw</data></plist>",
            "2:27: <data> is not valid base64: a final group without full '=' padding at offset 6 of its text"),
        Case("plus sign in an unquoted OpenStep string", "{ k = a+b; }", "1:8: expected ';' after the value of 'k', found '+'"),
        Case(
            "OpenStep octal escape past ASCII", "{ k = \"\\351\"; }",
            "1:8: octal escape \\351 is a NeXTSTEP character, not ASCII; write it as a \\U escape")
    ]

    @Test(arguments: refused)
    func inputCoreFoundationRefusesGetsAnExactError(_ testCase: Case) {
        FuzzSeeds.export(testCase.bytes, harness: "plist", name: testCase.name)
        do {
            let value = try PropertyList(data: testCase.bytes).value
            Issue.record("read \(value) instead of failing")
        } catch let error as Diagnostic where error.is(PlistProblem.self) {
            #expect(error.description == testCase.error)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func anEmptyFileIsAnErrorNamingTheFile() throws {
        try withTemporaryFolder { folder in
            let path = try folder.write("Empty.plist", Data())
            #expect(
                throws: Diagnostic.plist(
                    .malformed, "the file is empty; a property list needs at least a value",
                    at: .byte(0), file: path)
            ) {
                try PropertyList(contentsOf: path)
            }
        }
    }

    @Test func whiteSpaceAloneIsStillAnEmptyStringsFile() throws {
        let read = try PropertyList(data: Data(" \n".utf8))
        #expect(read.value == .dictionary(PlistDictionary()) && read.format == .openStep)
    }

    @Test func anIntegerOrRealMayStartWithWhiteSpace() throws {
        let xml = Self.prolog + "<plist><array><integer>\n\t-12</integer><real> 2.5</real></array></plist>"
        #expect(try XMLPlistReader().read(Data(xml.utf8)) == [-12, 2.5])
    }

    @Test func cdataIsTextInStringsKeysAndReals() throws {
        let xml =
            Self.prolog
            + "<plist><dict><key><![CDATA[k]]></key><array><string>a<![CDATA[<b>]]></string><real><![CDATA[1.5]]></real></array></dict></plist>"
        #expect(try XMLPlistReader().read(Data(xml.utf8)) == ["k": ["a<b>", 1.5]])
    }

    @Test func commentsBetweenElementsAreStillIgnored() throws {
        let xml = Self.prolog + "<!-- a --><plist><!-- b --><dict><!-- c --><key>k</key><!-- d --><true/></dict></plist><!-- e -->"
        #expect(try XMLPlistReader().read(Data(xml.utf8)) == ["k": true])
    }

    @Test func utf16XMLAndJSONWithAByteOrderMarkAreReadInTheirOwnFormat() throws {
        func utf16LE(_ text: String) -> Data { Data([0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }) }
        func utf16BE(_ text: String) -> Data { Data([0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }) }
        let xml = try PropertyList(data: utf16LE("<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist><string>é</string></plist>"))
        #expect(xml.value == "é" && xml.format == .xml)
        let json = try PropertyList(data: utf16BE(" {\"a\": [\"é\"]}"))
        #expect(json.value == ["a": ["é"]] && json.format == .json)
    }

    @Test func openStepDataAtTheRootIsNotMistakenForXML() throws {
        let read = try PropertyList(data: Data("<0a0B >".utf8))
        #expect(read.value == .data(Data([0x0A, 0x0B])) && read.format == .openStep)
        // Broken XML that is not OpenStep either keeps its XML error.
        #expect(throws: Diagnostic.plist(.malformed, "XML: StartTag: invalid element name", at: .line(1, column: 2))) {
            try PropertyList(data: Data("<<".utf8))
        }
    }

    @Test func convertReadsOpenStepDataAtTheRootToo() throws {
        try withTemporaryFolder { folder in
            let input = try folder.write("data.txt", "<0a0b>")
            try PlistConverter.convert(input, to: .binary, output: folder.path("out.plist"))
            #expect(try PropertyList(contentsOf: folder.path("out.plist")).value == .data(Data([0x0A, 0x0B])))
        }
    }

    @Test func aKeyWithoutValueInOpenStepMeansTheKeyItself() throws {
        #expect(try OpenStepPlistReader().read(Data("\"a\"; b = c;".utf8)) == ["a": "a", "b": "c"])
        #expect(try OpenStepPlistReader().read(Data("{ k; }".utf8)) == ["k": "k"])
    }

    @Test func onlyUppercaseUIsAUnicodeEscapeInOpenStep() throws {
        #expect(try OpenStepPlistReader().read(Data(#""\U00e9 \u00e9 \101""#.utf8)) == "é u00e9 A")
    }

    @Test func plusIsNotAnUnquotedOpenStepCharacter() {
        #expect(!OpenStepPlistReader.isUnquotedCharacter(UInt8(ascii: "+")))
        #expect(OpenStepPlistReader.isUnquotedCharacter(UInt8(ascii: "$")))
    }
}

import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// Bad XML input and the exact error each gets.
@Suite struct XMLMalformedInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var xml: String
        var error: String
        var testDescription: String { name }
    }

    static let prolog = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"

    static let cases: [Case] = [
        Case(
            name: "truncated document", xml: prolog + "<plist><dict><key>a</key><string>b",
            error: "2:35: XML: Premature end of data in tag string line 2"),
        Case(
            name: "unknown element", xml: prolog + "<plist><dict><key>a</key><strng>b</strng></dict></plist>",
            error: "2:32: unknown element <strng>"),
        Case(
            name: "two root values", xml: prolog + "<plist><true/><false/></plist>",
            error: "2:21: <plist> holds more than one root value"),
        Case(
            name: "content after the root element", xml: prolog + "<plist><true/></plist><plist/>",
            error: "2:23: XML: Extra content at the end of the document"),
        Case(
            name: "empty plist element", xml: prolog + "<plist></plist>",
            error: "2:16: <plist> holds no value"),
        Case(
            name: "value without key", xml: prolog + "<plist><dict><string>x</string></dict></plist>",
            error: "2:21: <string> in a <dict> without a <key> before it"),
        Case(
            name: "key without value", xml: prolog + "<plist><dict><key>a</key></dict></plist>",
            error: "2:33: key 'a' has no value before </dict>"),
        Case(
            name: "two keys in a row", xml: prolog + "<plist><dict><key>a</key><key>b</key></dict></plist>",
            error: "2:30: key 'a' has no value before the next <key>"),
        Case(
            name: "duplicate key", xml: prolog + "<plist><dict><key>a</key><true/><key>a</key><true/></dict></plist>",
            error: "2:45: key 'a' appears twice in the same <dict>"),
        Case(
            name: "key outside dict", xml: prolog + "<plist><array><key>a</key></array></plist>",
            error: "2:19: <key> outside a <dict>"),
        Case(
            name: "element inside a string", xml: prolog + "<plist><string>a<true/></string></plist>",
            error: "2:22: <true> is not allowed inside <string>"),
        Case(
            name: "text inside a dict", xml: prolog + "<plist><dict>stray</dict></plist>",
            error: "2:19: text outside a value element"),
        Case(
            name: "integer out of range", xml: prolog + "<plist><integer>18446744073709551616</integer></plist>",
            error: "2:47: '18446744073709551616' is not an integer from -2^63 to 2^64-1"),
        Case(
            name: "integer with letters", xml: prolog + "<plist><integer>12abc</integer></plist>",
            error: "2:32: '12abc' is not an integer from -2^63 to 2^64-1"),
        Case(
            name: "bad real", xml: prolog + "<plist><real>1.2.3x</real></plist>",
            error: "2:27: '1.2.3x' is not a real number"),
        Case(
            name: "bad date", xml: prolog + "<plist><date>2024-13-01T00:00:00Z</date></plist>",
            error: "2:41: '2024-13-01T00:00:00Z' is not a date of the form YYYY-MM-DDTHH:MM:SSZ"),
        Case(
            name: "bad base64", xml: prolog + "<plist><data>AA*A</data></plist>",
            error: "2:25: <data> is not valid base64: the character '*' at offset 2 of its text"),
        Case(
            name: "truncated base64 group", xml: prolog + "<plist><data>AAAAA</data></plist>",
            error: "2:26: <data> is not valid base64: a truncated group at offset 5 of its text"),
        Case(
            name: "text inside true", xml: prolog + "<plist><true>yes</true></plist>",
            error: "2:24: <true/> must be empty"),
        Case(
            name: "billion laughs",
            xml: prolog + """
                <!DOCTYPE plist [
                <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
                <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
                <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
                ]>
                <plist><string>&c;</string></plist>
                """, error: "3:73: the DOCTYPE declares entity 'a'; entity declarations are not allowed"),
        Case(
            name: "external entity",
            xml: prolog + """
                <!DOCTYPE plist [<!ENTITY x SYSTEM "file:///etc/passwd">]>
                <plist><string>&x;</string></plist>
                """, error: "2:56: the DOCTYPE declares entity 'x'; entity declarations are not allowed"),
        Case(
            name: "DOCTYPE internal subset with an element declaration",
            xml: prolog + """
                <!DOCTYPE plist [<!ELEMENT plist ANY>]>
                <plist><true/></plist>
                """, error: "2:38: the DOCTYPE has an internal subset; internal subsets are not allowed"),
        Case(
            name: "undeclared entity", xml: prolog + "<plist><string>&nope;</string></plist>",
            error: "2:22: XML: Entity 'nope' not defined"),
        Case(
            name: "mismatched tags", xml: prolog + "<plist><array></dict></plist>",
            error: "2:22: XML: Opening and ending tag mismatch: array line 2 and dict"),
        Case(
            name: "not XML at all after the angle bracket", xml: "<<<<",
            error: "1:2: XML: StartTag: invalid element name")
    ]

    @Test(arguments: cases)
    func malformedXMLGetsAnExactError(_ testCase: Case) {
        FuzzSeeds.export(Data(testCase.xml.utf8), harness: "xml-plist", name: testCase.name)
        do {
            let value = try XMLPlistReader().read(Data(testCase.xml.utf8))
            Issue.record("read \(value) instead of failing")
        } catch let error as Diagnostic where error.is(PlistProblem.self) {
            #expect(error.description == testCase.error)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func invalidUTF8IsAnErrorWithAPosition() {
        var bytes = Array((Self.prolog + "<plist><string>").utf8)
        bytes += [0xC3, 0x28]
        bytes += Array("</string></plist>".utf8)
        #expect(
            throws: Diagnostic.plist(
                .malformed, "XML: Input is not proper UTF-8, indicate encoding ! (Bytes: 0xC3 0x28 0x3C 0x2F)",
                at: .line(2, column: 16))
        ) {
            try XMLPlistReader().read(Data(bytes))
        }
    }

    /// Text that its declared encoding cannot convert (Shift_JIS, EUC-JP, ISO-2022-JP): libxml2 raised
    /// the converter's error without a parser and printed `encoding error : input conversion failed …`
    /// and `I/O error : encoder error` itself, then the error was a misleading "Premature end of data".
    /// Now the converter's message is the error, and libxml2 prints nothing.
    @Test(arguments: [("Shift_JIS", [0x81, 0xFF, 0x82]), ("EUC-JP", [0x8E, 0xFF]), ("ISO-2022-JP", [0x1B, 0x24, 0x42, 0xFF, 0xFE])])
    func textItsEncodingCannotConvertIsTheConvertersError(_ encoding: String, _ bad: [UInt8]) {
        let bytes =
            Array("<?xml version=\"1.0\" encoding=\"\(encoding)\"?>\n<plist><string>".utf8) + bad + Array("</string></plist>".utf8)
        FuzzSeeds.export(Data(bytes), harness: "xml-plist", name: "unconvertible \(encoding)")
        do {
            let value = try XMLPlistReader().read(Data(bytes))
            Issue.record("read \(value) instead of failing")
        } catch let error as Diagnostic where error.is(PlistProblem.self) {
            #expect(error.message.hasPrefix("XML: encoding error: input conversion failed due to input error, bytes 0x"), "\(error)")
            #expect(!error.description.contains("\n"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func nestingDeeperThanTheLimitIsRefusedEvenAt300000Levels() {
        let depth = 300_000
        let xml =
            Self.prolog + "<plist>" + String(repeating: "<array>", count: depth)
            + String(repeating: "</array>", count: depth) + "</plist>"
        #expect(throws: Diagnostic.plist(.limitExceeded, "nesting deeper than 512 levels", at: .line(2, column: 3598))) {
            try XMLPlistReader().read(Data(xml.utf8))
        }
    }

    @Test func aRaisedDepthLimitAcceptsDeeperFiles() throws {
        let xml =
            Self.prolog + "<plist>" + String(repeating: "<array>", count: 600) + String(repeating: "</array>", count: 600) + "</plist>"
        _ = try XMLPlistReader(limits: PlistLimits(maxDepth: 1000)).read(Data(xml.utf8))
    }
}

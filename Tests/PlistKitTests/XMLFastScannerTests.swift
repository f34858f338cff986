import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import PlistKit

/// `XMLPlistFastScanner` is a fast path only: where it accepts a document, libxml2 reads the
/// same value from it, and where it declines, `XMLPlistReader` gives libxml2's value or error.
@Suite struct XMLFastScannerTests {
    /// The value's binary encoding (equal for equal values, NaN included), or the error's description.
    static func outcome(_ read: () throws -> PlistValue) -> String {
        do {
            return "ok " + (try PropertyList.encode(try read(), format: .binary)).base64EncodedString()
        } catch {
            return "error: \(error)"
        }
    }

    /// Through libxml2 only, as before the fast path.
    static func throughLibxml2(_ data: Data) -> String {
        outcome {
            let builder = PlistTreeBuilder()
            try XMLPlistReader().read(data, into: builder)
            guard let root = builder.root else { throw Diagnostic.plist(.malformed, "the document holds no plist value") }
            return root
        }
    }

    /// Through the fast scanner only; nil when it declines.
    static func throughFastScanner(_ data: Data) -> String? {
        let builder = PlistTreeBuilder()
        guard data.withUnsafeBytes({ XMLPlistFastScanner.read($0, limits: .default, into: builder) }), let root = builder.root else {
            return nil
        }
        return outcome { root }
    }

    /// Checks both promises for `data`; returns whether the fast scanner accepted it.
    @discardableResult
    static func expectAgreement(_ data: Data, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let expected = throughLibxml2(data)
        #expect(outcome { try XMLPlistReader().read(data) } == expected, "\(name)", sourceLocation: sourceLocation)
        guard let fast = throughFastScanner(data) else { return false }
        #expect(fast == expected, "\(name): the fast scanner accepted it", sourceLocation: sourceLocation)
        return true
    }

    static let rich = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos;</key>
        \t<string>line&#13;&#10;break &#x1F600; &#xe9;t\u{E9} \u{6771}\u{4EAC} \u{1F680} ] ]] &gt;</string>
        \t<key>empty</key>
        \t<string/>
        \t<key>numbers</key>
        \t<array>
        \t\t<integer>-9223372036854775808</integer>
        \t\t<integer>18446744073709551615</integer>
        \t\t<real>-0.5e-3</real>
        \t\t<real>nan</real>
        \t\t<true/>
        \t\t<false></false>
        \t\t<date>2001-01-01T00:00:00Z</date>
        \t\t<data>
        \t\tAAECAwQF
        \t\t</data>
        \t\t<dict/>
        \t\t<array></array>
        \t</array>
        \t<key>\tspaced key\t</key>
        \t<string>  spaced\tvalue\n  </string>
        </dict>
        </plist>

        """

    @Test func theFastScannerReadsPlainDocumentsAsLibxml2Does() {
        let documents = [
            Self.rich,
            "<plist version=\"1.0\"><true/></plist>",
            "<?xml version=\"1.0\" encoding=\"utf-8\"?><plist><string>x</string></plist>",
            "<?xml version=\"1.0\"?>\n<dict><key>k</key><integer> 1</integer></dict>\n",
            "<string>root</string>"
        ]
        for (index, document) in documents.enumerated() {
            #expect(Self.expectAgreement(Data(document.utf8), "document \(index)"), "document \(index) was declined")
        }
    }

    @Test func everyDegenerateXMLInputGetsLibxml2sAnswer() {
        var accepted = 0
        for testCase in DegeneratePlistInputs.encodings + DegeneratePlistInputs.xml
        where Self.expectAgreement(testCase.bytes, testCase.name) {
            accepted += 1
        }
        #expect(accepted > 0)
    }

    /// Random small edits of a rich document: whatever the fast scanner accepts, libxml2 reads the same way.
    @Test func randomEditsNeverMakeTheFastScannerDisagree() {
        var random = SeededGenerator(seed: 14)
        let original = Array(Self.rich.utf8)
        let interesting: [UInt8] =
            Array("<>/&;#x]\r\n\t \"=?!-a1".utf8) + [0x00, 0x7F, 0x80, 0xBF, 0xBE, 0xC3, 0xED, 0xEF, 0xF0, 0xF4, 0xFF]
        var accepted = 0
        for round in 0..<4000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(interesting.randomElement(using: &random)!, at: at)
                case 2: bytes[at] = interesting.randomElement(using: &random)!
                default: bytes[at] = UInt8.random(in: 0...255, using: &random)
                }
            }
            if Self.expectAgreement(Data(bytes), "round \(round)") { accepted += 1 }
        }
        // Most edits land in text or white space, where the document stays plain.
        #expect(accepted > 100)
    }
}

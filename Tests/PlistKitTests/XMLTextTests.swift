import Foundation
import PlistKit
import TestSupport
import Testing

/// The one XML escaper: what it turns into entities, what XML cannot hold, and that Python's XML
/// parser reads its output back as the text (with U+FFFD where XML could not hold a character).
@Suite struct XMLTextTests {
    @Test func markupCharactersAreEntitiesQuotesOnlyInAttributes() {
        let text = "&<>\r\"'".utf8.map { XMLText.entity(for: $0, inAttribute: false)?.description }
        #expect(text == ["&amp;", "&lt;", "&gt;", "&#13;", nil, nil])
        let attribute = "&<>\r\"'".utf8.map { XMLText.entity(for: $0, inAttribute: true)?.description }
        #expect(attribute == ["&amp;", "&lt;", "&gt;", "&#13;", "&quot;", "&apos;"])
        #expect("a\t\n0;=?".utf8.allSatisfy { XMLText.entity(for: $0, inAttribute: true) == nil })
    }

    @Test func xmlCannotHoldC0ControlsButTabLineFeedAndReturnNorUFFFEAndUFFFF() {
        let held = (0..<0x20).filter { XMLText.canHold(Unicode.Scalar(UInt8($0))) }
        #expect(held == [0x09, 0x0A, 0x0D])
        #expect(!XMLText.canHold("\u{FFFE}") && !XMLText.canHold("\u{FFFF}"))
        #expect(XMLText.canHold(" ") && XMLText.canHold("\u{7F}") && XMLText.canHold("\u{FFFD}") && XMLText.canHold("\u{1F680}"))
    }

    @Test func escapeWritesEntitiesAndReplacesWhatXMLCannotHold() {
        #expect(XMLText.escape("Shout & \"Out\" <it's>") == "Shout &amp; &quot;Out&quot; &lt;it&apos;s&gt;")
        #expect(XMLText.escape("a\u{0}b\u{1B}c\u{FFFE}d\u{FFFF}") == "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}")
        #expect(XMLText.escape("line\r\nnext\ttab é 🚀") == "line&#13;\nnext\ttab é 🚀")
    }

    /// Python's expat reads the escaped text back, in element text and in an attribute of each quote
    /// (where XML turns a literal tab or line feed into a space, as it does for every attribute).
    @Test func pythonsXMLParserReadsTheEscapedTextBack() throws {
        let python = try #require(ProcessResult.which("python3"))
        let text = "a & b < c > d \"q\" 'a' ]]> \r\n\t é 🚀 \u{1}\u{FFFF}"
        let escaped = XMLText.escape(text)
        let document = "<r a=\"\(escaped)\" b='\(escaped)'>\(escaped)</r>"
        let script = """
            import sys, xml.etree.ElementTree as ET
            root = ET.fromstring(sys.stdin.buffer.read())
            normalised = root.text.replace("\\n", " ").replace("\\t", " ")
            assert root.get("a") == root.get("b") == normalised, (root.get("a"), root.get("b"), root.text)
            sys.stdout.buffer.write(root.text.encode("utf-8"))
            """
        let result = try ProcessResult.run(python, ["-c", script], input: Data(document.utf8))
        #expect(result.status == 0, "\(result.stderrText)")
        let expected = "a & b < c > d \"q\" 'a' ]]> \r\n\t é 🚀 \u{FFFD}\u{FFFD}"
        #expect(result.stdoutText == expected)
    }
}

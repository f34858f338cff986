import Foundation
import Manifest
import TestSupport
import Testing

/// The one HTML escaper: the five characters that end text or an attribute value, and Python's HTML
/// parser reading its output back.
@Suite struct HTMLTests {
    @Test func theFiveMarkupCharactersAreReferencesEverythingElseStays() {
        #expect(HTML.escape("Shout & \"Out\" <it's>") == "Shout &amp; &quot;Out&quot; &lt;it&#39;s&gt;")
        #expect(HTML.escape("line\r\nnext\ttab é 🚀 ;=/") == "line\r\nnext\ttab é 🚀 ;=/")
        #expect(HTML.escape("") == "")
    }

    /// A quote, `<` or `&` followed by a combining mark is one Character in Swift; it is escaped all
    /// the same, or a name of a quote, a combining acute and ` onclick=…` would end its attribute.
    @Test func aMarkupCharacterFollowedByACombiningMarkIsEscapedToo() {
        #expect(HTML.escape("x\"\u{301} onclick=alert(1)") == "x&quot;\u{301} onclick=alert(1)")
        #expect(HTML.escape("<\u{301}b>&\u{301}'\u{20DD}") == "&lt;\u{301}b&gt;&amp;\u{301}&#39;\u{20DD}")
    }

    /// Python's html.parser reads the escaped text back from element text and from an attribute
    /// of each quote.
    @Test func pythonsHTMLParserReadsTheEscapedTextBack() throws {
        let python = try #require(ProcessResult.which("python3"))
        let text = "a & b < c > d \"q\" 'a' &amp; </p> é 🚀"
        let escaped = HTML.escape(text)
        let document = "<p a=\"\(escaped)\" b='\(escaped)'>\(escaped)</p>"
        let script = """
            import sys
            from html.parser import HTMLParser
            class Reader(HTMLParser):
                def __init__(self):
                    super().__init__(convert_charrefs=True)
                    self.attributes, self.text = {}, ""
                def handle_starttag(self, tag, attributes): self.attributes = dict(attributes)
                def handle_data(self, data): self.text += data
            reader = Reader()
            reader.feed(sys.stdin.buffer.read().decode("utf-8"))
            reader.close()
            assert reader.attributes == {"a": reader.text, "b": reader.text}, (reader.attributes, reader.text)
            sys.stdout.buffer.write(reader.text.encode("utf-8"))
            """
        let result = try ProcessResult.run(python, ["-c", script], input: Data(document.utf8))
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == text)
    }
}

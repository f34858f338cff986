import Testing

@testable import SystemSupport

/// What the printing boundary does to text someone else controls: shown, never obeyed.
@Suite struct UntrustedTextTests {
    @Test func ordinaryTextIsKeptByteForByte() {
        for text in ["Apple Development: Demo Signer (DEMO123456)", "Café – 日本語 🚀", "C:\\path\\u{0A}", "a: b", "#1 [x]", ""] {
            #expect(UntrustedText.line(text) == text)
            #expect(UntrustedText.block(text) == text)
        }
        #expect(UntrustedText.block("first\n\tsecond\n") == "first\n\tsecond\n")
    }

    @Test func aLineShowsEveryControlCharacterInsteadOfObeyingIt() {
        #expect(UntrustedText.line("a\nerror: everything is fine") == "a\\u{0A}error: everything is fine")
        #expect(UntrustedText.line("over\rwrite\u{0}nul\tab") == "over\\u{0D}write\\u{00}nul\\u{09}ab")
        #expect(UntrustedText.line("\u{1B}[31mred\u{7F}\u{85}") == "\\u{1B}[31mred\\u{7F}\\u{85}")
        #expect(UntrustedText.line("a\u{2028}b\u{2029}c\u{202E}d\u{2066}") == "a\\u{2028}b\\u{2029}c\\u{202E}d\\u{2066}")
        #expect(!UntrustedText.line("x\r\ny\u{0}z").unicodeScalars.contains { $0.value < 0x20 })
    }

    @Test func aBlockKeepsItsLineEndsAndShowsTheRest() {
        #expect(UntrustedText.block("one\r\ntwo\u{0}\n") == "one\\u{0D}\ntwo\\u{00}\n")
    }

    @Test func ciMarkersAreBrokenWhereTheServersWouldReadThem() {
        let forged = "Signed by x ##teamcity[setParameter name='adhocbuild.page_url' value='https://evil.example/tc']"
        #expect(
            UntrustedText.line(forged)
                == "Signed by x ##teamcity\\u{5B}setParameter name='adhocbuild.page_url' value='https://evil.example/tc']")
        #expect(UntrustedText.line("::warning::forged") == "\\u{3A}:warning::forged")
        #expect(UntrustedText.line("  ::add-mask::x") == "  \\u{3A}:add-mask::x")
        #expect(UntrustedText.block("ok\n::error::forged\n") == "ok\n\\u{3A}:error::forged\n")
        // `::` inside a line is no workflow command and stays.
        #expect(UntrustedText.line("a ::b") == "a ::b")
    }

    @Test func textTheOnePassCallsPlainIsTextTheLongWayKeeps() {
        // Every text of up to five pieces from pieces that matter to either way (line ends, blanks,
        // both CI markers, controls, non-ASCII): when the one pass says plain, the long way agrees.
        let pieces = ["a", " ", "\t", "\n", ":", "::", "#", "##teamcity[", "\r", "\u{0}", "é", "\u{85}", "\u{2028}", "[x]"]
        var texts = [""]
        var plain = 0
        for _ in 0..<5 { texts = texts.flatMap { text in pieces.map { text + $0 } } }
        for text in texts where UntrustedText.isPlainBlock(text) {
            plain += 1
            #expect(UntrustedText.escapedBlock(text) == text, "\(text.debugDescription)")
        }
        #expect(plain > 1000)
        #expect(UntrustedText.isPlainBlock("seal valid: Payload/Bench.app (ad-hoc)\n  3 nested items\n"))
        #expect(!UntrustedText.isPlainBlock("ok\n::error::forged\n"))
        #expect(!UntrustedText.isPlainBlock("caf\u{E9}\n"))
    }
}

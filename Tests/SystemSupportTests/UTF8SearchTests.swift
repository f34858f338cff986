import SystemSupport
import Testing

/// Text found in paths by its bytes (``UTF8Search``): as Foundation's `contains` finds it, but
/// two Unicode forms of one text are two texts.
@Suite struct UTF8SearchTests {
    @Test(arguments: [
        ("Payload/A.app/_CodeSignature/CodeResources", "_CodeSignature/", true),
        ("Payload/A.app/_CodeSignatureX", "_CodeSignature/", false),
        ("_CodeSignature/", "_CodeSignature/", true),
        ("abc", "", true),
        ("", "a", false),
        ("aab", "ab", true),
        ("a/b\\c", "\\", true),
        ("Caf\u{E9}/x", "Caf\u{E9}", true),
        ("Cafe\u{301}/x", "Caf\u{E9}", false)
    ])
    func aPartIsFoundByItsBytes(text: String, part: String, found: Bool) {
        #expect(UTF8Search.contains(text, part) == found)
    }
}

/// The rest of a path below a folder, cut by bytes (``UTF8Search/remainder(of:after:)``).
@Suite struct UTF8SearchRemainderTests {
    @Test(
        arguments: [
            ("A.app/Assets/x.png", "A.app/", "Assets/x.png"),
            ("A.app/", "A.app/", ""),
            ("A.app", "A.app/", nil),
            ("B.app/x", "A.app/", nil),
            ("abc", "", "abc"),
            ("Caf\u{E9}.app/x", "Caf\u{E9}.app/", "x"),
            ("Cafe\u{301}.app/x", "Caf\u{E9}.app/", nil)
        ] as [(String, String, String?)])
    func theRestIsCutByBytes(text: String, prefix: String, rest: String?) {
        #expect(UTF8Search.remainder(of: text, after: prefix) == rest)
    }
}

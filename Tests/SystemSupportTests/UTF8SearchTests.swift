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

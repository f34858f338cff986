import Foundation
import SystemSupport
import Testing

/// Strings ordered by their UTF-8 bytes, as Apple's tools sort paths and keys.
@Suite struct UTF8OrderTests {
    @Test func stringsAreComparedByTheirBytes() {
        let names = ["", "a", "A", "a.txt", "a/b", "ab", "é", "e\u{301}", "z", "\u{1F600}", "Z", "a\u{0}b"]
        // Long enough not to be stored inline, and one bridged from Foundation.
        let long = ["Payload/Bench.app/Assets/Group0/res00001.png", "Payload/Bench.app/Assets/Group0/res0001.png"]
        let bridged = [NSString(string: "Payload/Bench.app/é").description]
        let all = names + long + bridged
        for first in all {
            for second in all {
                #expect(
                    UTF8Order.precedes(first, second) == first.utf8.lexicographicallyPrecedes(second.utf8),
                    "\(first.debugDescription) before \(second.debugDescription)")
            }
        }
    }
}

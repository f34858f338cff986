import Foundation
import SystemSupport
import TestSupport
import Testing

/// Names a build controls become one safe file name inside the output folder, never a path.
@Suite struct SafeFileNameTests {
    @Test func separatorsDotsAndControlCharactersBecomeUnderscores() {
        #expect(SafeFileName.from("../../../../esc/zzzzz") == "____________esc_zzzzz")
        #expect(SafeFileName.from("..") == "__")
        #expect(SafeFileName.from(".") == "_")
        #expect(SafeFileName.from(".hidden") == "_hidden")
        #expect(SafeFileName.from("a...b") == "a__.b")
        #expect(SafeFileName.from("a\u{0}b\u{1B}[2Jc\nd\u{85}e\u{2028}f\\g") == "a_b_[2Jc_d_e_f_g")
        #expect(SafeFileName.from("") == "unnamed")
        #expect(SafeFileName.from("", fallback: "icon") == "icon")
        #expect(SafeFileName.from("AppIcon") == "AppIcon")
        #expect(SafeFileName.from("Icône…") == "Icône…")
    }

    @Test func aLongNameIsCutOnACharacterBoundary() {
        let cut = SafeFileName.from(String(repeating: "é", count: 500))
        #expect(cut.utf8.count <= SafeFileName.maximumBytes && cut.utf8.count >= SafeFileName.maximumBytes - 1)
        #expect(cut.allSatisfy { $0 == "é" })
    }

    @Test func aPathIsOnlyMadeFromOneSafeName() throws {
        #expect(try SafeFileName.path("AppIcon-60x60@3x~iphone.png", inside: "/out") == "/out/AppIcon-60x60@3x~iphone.png")
        #expect(try SafeFileName.path("a.png", inside: "/out/") == "/out/a.png")
        for bad in ["", ".", "..", "../x.png", "a/b.png", "a\u{0}.png", "a\nb.png", String(repeating: "x", count: 256)] {
            expectDiagnostic(FileProblem.self, "\(bad)") { try SafeFileName.path(bad, inside: "/out") }
        }
        let error = expectDiagnostic(FileProblem.self) { try SafeFileName.path("../esc", inside: "/out") }
        #expect(error?.description == "/out: refusing to write '../esc' here: not one safe file name inside the folder")
    }
}

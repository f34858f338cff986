import SystemSupport
import TestSupport
import Testing

/// Issue 31, messages: a file name that is not UTF-8 is named with its bad bytes shown, not turned
/// into a path that does not exist (`bad��.txt: cannot be read: No such file or directory`).
@Suite struct DirectoryEntryNameTests {
    static func decode(_ bytes: [UInt8]) throws -> String {
        try (bytes + [0]).withUnsafeBytes { try DirectoryEntryName.decode($0, in: "A.app") }
    }

    @Test func aUTF8NameIsItsText() throws {
        #expect(try Self.decode(Array("Icône@2x.png".utf8)) == "Icône@2x.png")
    }

    /// An ASCII name (the common case, decoded without validation) ends at the first NUL, and
    /// control characters are kept as they are.
    @Test func anASCIINameIsItsBytesUpToTheNUL() throws {
        #expect(try Self.decode(Array("res00001.nib".utf8)) == "res00001.nib")
        #expect(try Self.decode(Array("a\u{1}b".utf8) + [0] + Array("tail".utf8)) == "a\u{1}b")
        let full = Array(repeating: UInt8(ascii: "x"), count: 255)
        #expect(try full.withUnsafeBytes { try DirectoryEntryName.decode($0, in: "A.app") } == String(repeating: "x", count: 255))
    }

    @Test func aNameThatIsNotUTF8IsAnErrorShowingItsBytes() {
        let error = expectDiagnostic(FileProblem.self) { try Self.decode(Array("bad".utf8) + [0xFF, 0xFE] + Array(".txt".utf8)) }
        #expect(
            error?.description
                == "A.app: holds a file whose name is not UTF-8 ('bad\\xFF\\xFE.txt'); an ipa names its files in UTF-8, so rename it")
        let mixed = expectDiagnostic(FileProblem.self) { try Self.decode([0xC3, 0xA9, 0xC3, 0x0A, 0x80]) }
        #expect(mixed?.message.contains("('é\\xC3\\u{0A}\\x80')") == true)
    }
}

import Foundation
import Testing

@testable import IPAKit

/// An archive's entry names are checked on their bytes when they are printable ASCII, and
/// character by character otherwise; both must pass exactly the same names, and a name's folder
/// must be what NSString says for the ASCII names the reader lets through. (NSString traps on a
/// name of one character, and on `a/` followed by a combining accent, which forms one character
/// with the slash; the folder of the one is empty, of the other what is before the slash's byte.)
@Suite struct EntryNameFastPathTests {
    static let names = [
        "Payload/A.app/Info.plist", "Payload/A.app/", "Payload/A.app/en.lproj/Main.strings", "a", "a/", "x/y/z/", "a b/c~d",
        ".hidden/a", "a/.b", "a/b..", "..a", "...", "a/.../b", "a./b", "..../", "ab:c", "a/:b", "/abs", "\\abs", "c:x", "a:", ":",
        "a/../b", "..", "../a", "a/..", "a/../", "a/./b", "./a", "a/.", "a//b", "a//", "", "/", ".", "a\\b", "a\u{0}b", "a\tb",
        "a\rb", "a\r\nb", "a\u{7F}b", "é/a", "a/é", "e\u{301}:/a", "a/\u{301}", "Payload/A.app/\u{0600}/x"
    ]

    @Test func theByteCheckPassesExactlyWhatTheCharacterChecksPass() {
        for name in Self.names {
            let passes = (try? ZipArchiveReader.checkCharacters(of: name, in: "t.ipa")) != nil
            let printable = name.utf8.allSatisfy { $0 >= 0x20 && $0 <= 0x7E }
            #expect(ZipArchiveReader.isPlainASCIIPath(name) == (printable && passes), "\(name.debugDescription)")
            #expect(((try? ZipArchiveReader.checkName(name, in: "t.ipa")) != nil) == passes, "\(name.debugDescription)")
        }
    }

    @Test func anEntrysFolderIsWhatIsBeforeItsLastSlash() throws {
        #expect(ArchiveStorage.folder(of: "a") == "")
        #expect(ArchiveStorage.folder(of: "a/\u{301}") == "a")
        for name in Self.names where name.utf8.allSatisfy({ $0 < 0x80 }) && (try? ZipArchiveReader.checkName(name, in: "t.ipa")) != nil {
            var path = name
            if path.hasSuffix("/") { path.removeLast() }
            guard path.count > 1 else { continue }
            #expect(ArchiveStorage.folder(of: path) == (path as NSString).deletingLastPathComponent, "\(name.debugDescription)")
        }
    }
}

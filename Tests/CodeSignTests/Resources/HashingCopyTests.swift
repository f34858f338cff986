import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import CodeSign

/// The copy a release signs (``HashingCopy``) and the walk it lists folders with (``FolderWalk``):
/// regular files known from the listing are linked with no `lstat`, and the copy is the same,
/// file for file, with the same digests, as one that copies every byte.
@Suite struct HashingCopyTests {
    /// A small bundle: nested folders (one not writable by others), a link, an executable file.
    private func makeBundle(in folder: TemporaryFolder) throws -> String {
        let app = folder.path("A.app")
        try FileManager.default.createDirectory(atPath: app + "/Base.lproj/Main.storyboardc", withIntermediateDirectories: true)
        _ = try folder.write("A.app/Info.plist", "<plist/>")
        _ = try folder.write("A.app/Base.lproj/Main.storyboardc/Info.plist", "nib")
        _ = try folder.write("A.app/A", Data([0xCF, 0xFA, 0xED, 0xFE, 1, 2, 3]))
        _ = try folder.write("A.app/empty.txt", "")
        chmod(app + "/A", 0o755)
        chmod(app + "/Base.lproj", 0o750)
        try FileManager.default.createSymbolicLink(atPath: app + "/Current", withDestinationPath: "Base.lproj")
        return app
    }

    @Test func walkingByListingVisitsWhatTheFullWalkVisitsAndStatsNoRegularFile() throws {
        try withTemporaryFolder { folder in
            let app = try makeBundle(in: folder)
            var full: [String: mode_t] = [:]
            try FolderWalk.walk(app) { relative, _, info in
                full[relative] = info.st_mode & S_IFMT
                return true
            }
            var listed: [String: mode_t] = [:]
            var statted: Set<String> = []
            try FolderWalk.walkListing(app) { relative, _, entry in
                switch entry {
                case .regularFile: listed[relative] = S_IFREG
                case .other(let info):
                    listed[relative] = info.st_mode & S_IFMT
                    statted.insert(relative)
                }
                return true
            }
            #expect(listed == full)
            #expect(statted == ["Base.lproj", "Base.lproj/Main.storyboardc", "Current"])
        }
    }

    @Test func aLinkedCopyHoldsTheSameFilesModesAndDigestsAsAWrittenOne() throws {
        try withTemporaryFolder { folder in
            let app = try makeBundle(in: folder)
            let linked = try HashingCopy.copy(app, to: folder.path("linked.app"), linking: true)
            let written = try HashingCopy.copy(app, to: folder.path("written.app"), linking: false)
            for relative in ["Info.plist", "Base.lproj/Main.storyboardc/Info.plist", "empty.txt"] {
                let linkedContent = linked.content(of: folder.path("linked.app/" + relative))
                #expect(linkedContent != nil, "\(relative) was hashed")
                #expect(linkedContent == written.content(of: folder.path("written.app/" + relative)), "\(relative)")
                var original = stat(), copy = stat()
                #expect(lstat(app + "/" + relative, &original) == 0 && lstat(folder.path("linked.app/" + relative), &copy) == 0)
                #expect(original.st_ino == copy.st_ino, "\(relative) is linked, not copied")
            }
            // Mach-O is left for the signer to hash; it is still linked.
            #expect(linked.content(of: folder.path("linked.app/A")) == nil)
            for copy in ["linked.app", "written.app"] {
                var folderInfo = stat(), executable = stat()
                #expect(lstat(folder.path(copy + "/Base.lproj"), &folderInfo) == 0 && folderInfo.st_mode & 0o777 == 0o750)
                #expect(lstat(folder.path(copy + "/A"), &executable) == 0 && executable.st_mode & 0o777 == 0o755)
                #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder.path(copy + "/Current")) == "Base.lproj")
            }
        }
    }

    @Test func aFolderThatCannotBeListedIsNamed() throws {
        try withTemporaryFolder { folder in
            _ = #expect {
                try FolderWalk.walkListing(folder.path("missing")) { _, _, _ in true }
            } throws: { error in
                "\(error)".contains("missing: cannot be listed: No such file or directory")
            }
        }
    }
}

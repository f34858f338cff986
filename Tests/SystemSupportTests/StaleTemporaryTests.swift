import Foundation
import TestSupport
import Testing

@testable import SystemSupport

/// Leftover temporary files are removed only when their writer is really gone, even when its
/// process id has since been given to another process.
@Suite struct StaleTemporaryTests {
    @Test func onlyTemporariesOfProcessesThatAreGoneAreRemoved() throws {
        try withTemporaryFolder { folder in
            let parent = getppid()
            let parentStart = try #require(ProcessStatus(pid: parent)).startTime
            let names = [
                "live": ".adhocbuild-tmp-Info.plist-\(parent).\(parentStart)-abc",
                "liveOldFormat": ".adhocbuild-tmp-Info.plist-\(parent)-abc",
                "reusedID": ".adhocbuild-tmp-Info.plist-\(parent).\(parentStart + 1)-abc",
                "gone": ".adhocbuild-tmp-Info.plist-\(Int32.max - 1).5-abc",
                "ours": (FileIO.temporaryPath(for: folder.path("Info.plist")) as NSString).lastPathComponent,
                "notOurs": "adhocbuild-tmp-but-not-a-temporary-1-2"
            ]
            for name in names.values { try folder.create(name, Data("x".utf8)) }
            FileIO.removeStaleTemporaries(in: folder.url.path)
            let left = Set(try FileManager.default.contentsOfDirectory(atPath: folder.url.path))
            #expect(left == Set([names["live"]!, names["liveOldFormat"]!, names["ours"]!, names["notOurs"]!]))
        }
    }

    /// A file inside a work folder of this process (which it removes before exiting) is written without
    /// waiting for the disk; one inside another process's, or in no work folder, is not taken for one.
    @Test func onlyPathsThroughAWorkFolderOfThisProcessAreInsideOne() {
        let ours = (FileIO.temporaryPath(for: "/x/dist/release") as NSString).lastPathComponent
        #expect(FileIO.isInsideOwnWorkFolder("/x/dist/\(ours)/input/Payload/A.app/A"))
        #expect(FileIO.isInsideOwnWorkFolder("dist/\(ours)/A"))
        #expect(!FileIO.isInsideOwnWorkFolder("/x/dist/\(ours)"), "the folder itself is not inside one")
        #expect(!FileIO.isInsideOwnWorkFolder("/x/dist/.adhocbuild-tmp-release-\(Int32.max - 1).5-abc/A"))
        #expect(!FileIO.isInsideOwnWorkFolder("/x/dist/release/Payload/A.app/A"))
    }

    /// Only names that start with the prefix are taken, whole and with non-ASCII intact, among many others.
    @Test func theListingTakesExactlyTheNamesWithThePrefix() throws {
        try withTemporaryFolder { folder in
            let ours = [".adhocbuild-tmp-Ünïcödé.plist-1.2-x", ".adhocbuild-tmp-" + String(repeating: "n", count: 200), ".adhocbuild-tmp-"]
            let others = [".adhocbuild-tm", "x.adhocbuild-tmp-a", ".ADHOCBUILD-TMP-a"] + (0..<3000).map { "file \($0)" }
            for name in ours + others { try folder.create(name, Data()) }
            try FileManager.default.createDirectory(atPath: folder.path(".adhocbuild-tmp-folder-3.4-y"), withIntermediateDirectories: false)
            #expect(Set(FileIO.temporaryNames(in: folder.url.path)) == Set(ours + [".adhocbuild-tmp-folder-3.4-y"]))
            #expect(FileIO.temporaryNames(in: folder.path("missing")).isEmpty)
        }
    }

    @Test func aTemporaryNameCarriesThisProcessAndItsStartTime() throws {
        let name = (FileIO.temporaryPath(for: "/tmp/Info.plist") as NSString).lastPathComponent
        let start = try #require(ProcessStatus(pid: getpid())).startTime
        #expect(name.hasPrefix(".adhocbuild-tmp-Info.plist-\(getpid()).\(start)-"))
    }
}

/// Temporary names are made beside their target by cutting its path as Foundation's URL cuts it,
/// without URL's start-up cost.
@Suite struct PathSplitTests {
    @Test func pathsAreCutAsURLCutsThem() {
        let paths = [
            "/a/b/c.xml", "c.xml", "dir/c.xml", "dir/c.xml/", "/a//b", "./x", "../x", "../../x/y", "/x", "x/", "/a/b/",
            "a/./b", "/", "//x", "a b/é.plist", "/tmp/", "a/../../b", "dist/release", "."
        ]
        // Not compared: "/..", which URL keeps as a name ("..") and split reads as the root.
        for path in paths {
            let url = URL(fileURLWithPath: path)
            let (folder, name) = FileIO.split(path)
            #expect(folder == url.deletingLastPathComponent().path, "folder of \(path.debugDescription)")
            #expect(name == url.lastPathComponent, "name of \(path.debugDescription)")
        }
    }

    @Test func pathsAreStandardizedAsURLStandardizesThem() {
        let paths = [
            "/a/b/c.xml", "c.xml", "dir/c.xml/", "/a//b", "./x", "../x", "../../x/y", "/x", "x/", "/a/b/", "a/./b", "/", "//x",
            "a b/é.plist", "/tmp/", "a/../../b", "dist/release", ".", "/a/b/..", "a/b/../../..", "./", "/a/./b/../c//"
        ]
        for path in paths {
            #expect(FileIO.standardized(path) == URL(fileURLWithPath: path).standardizedFileURL.path, "\(path.debugDescription)")
        }
        // Where URL differs on purpose: a leading `~` names a file in the working folder, as it does for open(2).
        #expect(FileIO.standardized("~/x") == FileIO.standardized(".") + "/~/x")
    }

    @Test func aTemporaryPathSitsBesideItsTarget() {
        let temporary = FileIO.temporaryPath(for: "dist/App.ipa")
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let cwd = String(cString: getcwd(&buffer, buffer.count)!)
        #expect(temporary.hasPrefix(cwd + "/dist/" + FileIO.temporaryPrefix + "App.ipa-"))
    }
}

import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import IPAKit

/// Files compressed while the rest of an app is still being changed (signed) go into its ipa as
/// they were compressed, unless they changed since.
@Suite struct CompressedAheadTests {
    @Test func filesStillAsTheyWereAreNotCompressedAgainAndAChangedOneIs() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let text = (0..<3000).map { "compressed ahead \($0 % 11). " }.joined()
            for name in ["Info.plist", "kept.txt", "changed.txt", "Sub/nested.txt"] {
                try FileManager.default.createDirectory(
                    atPath: folder.path("A.app/" + (name as NSString).deletingLastPathComponent), withIntermediateDirectories: true)
                _ = try folder.write("A.app/" + name, text + name)
            }
            _ = try folder.write("A.app/late.txt", "made after")
            try FileManager.default.createDirectory(atPath: folder.path("out"), withIntermediateDirectories: true)
            let paths = ["kept.txt", "changed.txt", "Sub/nested.txt", "missing.txt"].map { folder.path("A.app/" + $0) }
            let ahead = try IPAPackager().compressAhead(paths, spoolIn: folder.path("out"))
            #expect(ahead.count == 3, "what is not a file is left out")
            // Changed in place after it was compressed: its identity (change time) is not the one recorded.
            let handle = try #require(FileHandle(forUpdatingAtPath: folder.path("A.app/changed.txt")))
            try handle.write(contentsOf: Data("CHANGED".utf8))
            try handle.close()
            var options = IPAPackager.Options()
            options.ahead = ahead
            let compressedNow = Locked<Int64>(0)
            options.progress = { _, total in compressedNow.withLock { $0 = total } }
            let out = folder.path("out/A.ipa")
            _ = try IPAPackager(options: options).package(folder.path("A.app"), to: out)
            let reader = try ZipArchiveReader(path: out)
            for name in ["Info.plist", "kept.txt", "changed.txt", "Sub/nested.txt", "late.txt"] {
                let content = try Data(contentsOf: URL(fileURLWithPath: folder.path("A.app/" + name)))
                #expect(try reader.data(named: "Payload/A.app/" + name) == content, "\(name)")
            }
            // Compressed now: Info.plist, late.txt and the changed file, not what was compressed ahead.
            let fresh = try ["Info.plist", "late.txt", "changed.txt"].reduce(Int64(0)) { sum, name in
                sum + Int64(try Data(contentsOf: URL(fileURLWithPath: folder.path("A.app/" + name))).count)
            }
            #expect(compressedNow.value == fresh)
            #expect(try ProcessResult.run("/usr/bin/unzip", ["-tq", out]).status == 0)
        }
    }
}

import Foundation
import IPAKit
import SystemSupport
import TestSupport
import Testing

@testable import AdhocBuildKit
@testable import CodeSign

/// `release` of an `.app` works on a copy whose files are hard links to the build's (``BuildCopy``):
/// every file it changes (the environment's plists, the build number, what the signer writes, a mode
/// given back) is replaced in the copy, never written in place, so the build is left as it was.
@Suite struct ReleaseInputTests {
    /// What is at each path under `root`, links not followed: kind, permissions, and the bytes of a
    /// file or the target of a link.
    static func snapshot(_ root: String) throws -> [String: String] {
        var result: [String: String] = [:]
        let walker = try #require(FileManager.default.enumerator(atPath: root))
        while let relative = walker.nextObject() as? String {
            let path = root + "/" + relative
            var info = stat()
            try #require(lstat(path, &info) == 0, "\(path)")
            let mode = String(info.st_mode & 0o7777, radix: 8)
            switch info.st_mode & S_IFMT {
            case S_IFDIR: result[relative] = "folder \(mode)"
            case S_IFLNK: result[relative] = "link to \(try FileManager.default.destinationOfSymbolicLink(atPath: path))"
            default:
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                result[relative] = "file \(mode) \(Digest.sha256(bytes).hexString)"
            }
        }
        return result
    }

    /// The example app, its executable without its execute bit (as a CI artifact loses it), with a
    /// link and a read-only file, at `path`.
    static func makeApp(at path: String) throws {
        try FileManager.default.copyItem(atPath: ReleasePipelineTests.exampleApp, toPath: path)
        chmod(path + "/ShoutOut", 0o644)
        try "read only\n".write(toFile: path + "/notes.txt", atomically: false, encoding: .utf8)
        chmod(path + "/notes.txt", 0o444)
        try FileManager.default.createSymbolicLink(atPath: path + "/icon.png", withDestinationPath: "AppIcon60x60@3x.png")
    }

    /// A release of `app` into `out`: environment QA, build number 4711, re-signed with a test identity.
    static func release(_ app: String, out: String, in folder: TemporaryFolder) throws -> ReleasePipeline.Result {
        let made = try TestIdentities.make(in: folder)
        let profile = try TestProfile(certificates: [
            try SigningIdentity(p12: made.rsa, password: .file(made.passwordFile)).certificate.der
        ])
        .write("wildcard.mobileprovision", with: made)
        var options = try IPARetargetTests.options(folder, input: app)
        options.out = out
        options.signing = SigningRequest(identity: made.rsa, password: .file(made.passwordFile), appProfile: profile)
        return try ReleasePipeline(options: options).run()
    }

    /// The release changed what it should in its ipa, and signed it.
    static func expectReleased(_ result: ReleasePipeline.Result) throws {
        #expect(result.signature == "valid", "\(result.signatureSummary)")
        let info = try IPARetargetTests.infoPlist(result.ipa, app: "ShoutOut.app")
        #expect(info["AdhocBuildEnvironment"]?.stringValue == "QA")
        #expect(info["CFBundleVersion"]?.stringValue == "4711")
        let reader = try ZipArchiveReader(path: result.ipa)
        #expect(reader.entry(named: "Payload/ShoutOut.app/ShoutOut")?.mode.map { $0 & 0o111 == 0o111 } == true)
        #expect(reader.entry(named: "Payload/ShoutOut.app/_CodeSignature/CodeResources") != nil)
        #expect(reader.entry(named: "Payload/ShoutOut.app/notes.txt")?.mode.map { $0 & 0o777 } == 0o444)
        #expect(reader.entry(named: "Payload/ShoutOut.app/icon.png")?.isSymlink == true)
    }

    @Test func aSignedReleaseOfAnAppLeavesEveryFileOfTheAppAsItWas() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let app = folder.path("ShoutOut.app")
            try Self.makeApp(at: app)
            let before = try Self.snapshot(app)
            let result = try Self.release(app, out: folder.path("dist"), in: folder)
            try Self.expectReleased(result)
            #expect(result.warnings.contains { $0.message.contains("had lost the execute permission") }, "\(result.warnings)")
            let after = try Self.snapshot(app)
            for path in Set(before.keys).union(after.keys).sorted() {
                #expect(after[path] == before[path], "\(path) was changed")
            }
        }
    }

    @Test func theCopyOfABuildLinksItsFilesAndHashesThemAsACopyDoes() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let app = folder.path("ShoutOut.app")
            try Self.makeApp(at: app)
            let linked = try #require(try BuildCopy.copy(app, to: folder.path("linked.app"), hashing: true))
            let copied = try HashingCopy.copy(app, to: folder.path("copied.app"))
            #expect(linked.count == copied.count && linked.count >= 4)
            for name in ["Info.plist", "AppIcon60x60@3x.png", "notes.txt"] {
                var original = stat(), link = stat()
                #expect(stat(app + "/" + name, &original) == 0 && stat(folder.path("linked.app") + "/" + name, &link) == 0)
                #expect(original.st_ino == link.st_ino, "\(name) is linked, not written again")
                let (linkedDigests, copiedDigests) = (
                    linked.content(of: folder.path("linked.app") + "/" + name), copied.content(of: folder.path("copied.app") + "/" + name)
                )
                #expect(linkedDigests != nil && linkedDigests == copiedDigests, "\(name)")
            }
            // Code is left for the signer, which writes it again (and never seals a bundle's own executable).
            #expect(linked.content(of: folder.path("linked.app") + "/ShoutOut") == nil)
            #expect(try Self.snapshot(folder.path("linked.app")) == Self.snapshot(app))
        }
    }

    @Test func aBuildOnAnotherFileSystemIsCopiedAndLeftAsItWas() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            // /dev/shm is a file system of its own on Linux; where it is not, there is nothing to show here.
            var shm = stat(), temporary = stat()
            guard stat("/dev/shm", &shm) == 0, stat(folder.url.path, &temporary) == 0, shm.st_dev != temporary.st_dev,
                access("/dev/shm", W_OK) == 0
            else { return }
            let other = "/dev/shm/adhocbuild-test-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(atPath: other) }
            let app = other + "/ShoutOut.app"
            try Self.makeApp(at: app)
            let before = try Self.snapshot(app)
            let copy = folder.path("copy.app")
            let digests = try #require(try BuildCopy.copy(app, to: copy, hashing: true))
            var original = stat(), copied = stat()
            #expect(stat(app + "/Info.plist", &original) == 0 && stat(copy + "/Info.plist", &copied) == 0)
            #expect(copied.st_dev != original.st_dev && digests.content(of: copy + "/Info.plist") != nil)
            #expect(try Self.snapshot(copy) == before)
            try Self.expectReleased(try Self.release(app, out: folder.path("dist"), in: folder))
            #expect(try Self.snapshot(app) == before)
        }
    }
}

import Foundation
import IPAKit
import PlistKit
import TestSupport
import Testing

@testable import CodeSign

/// An app folder's files hashed as the folder is listed (``FolderDigestPrefetch``): a file is
/// confirmed only when the digest read from it now is the one its seal checks; a sealed file it
/// could not confirm, and a file the seal does not name, are reported to the check, which checks
/// them as always; what it never hashed is left to the check.
@Suite struct FolderDigestPrefetchTests {
    /// `P.app` with resources at several depths, an executable, a signature folder and nested code.
    static func makeApp(in folder: TemporaryFolder) throws -> String {
        for (index, path) in ["a.png", "Sub/b.nib", "Sub/Deep/c.json", "en.lproj/d.strings"].enumerated() {
            try folder.create("P.app/" + path, Data(repeating: UInt8(index + 1), count: 5000 * (index + 1)))
        }
        try folder.create("P.app/P", Data("code".utf8))
        try folder.create("P.app/Info.plist", Data("<plist><dict/></plist>".utf8))
        try folder.create("P.app/_CodeSignature/CodeResources", Data("<plist/>".utf8))
        try folder.create("P.app/Frameworks/X.framework/X", Data("framework".utf8))
        try folder.create("P.app/PlugIns/E.appex/E", Data("extension".utf8))
        return folder.path("P.app")
    }

    /// Every regular file of the app, as the listing hands them over (keys `P.app/...`).
    static func listing(_ app: String) throws -> [String] {
        let storage = try AppPackage.open(app, folderDetail: .kinds).app.storage
        return storage.files.filter { !$0.value.isDirectory && !$0.value.isSymlink }.keys.sorted()
    }

    static func digest(_ app: String, _ path: String, _ type: HashType = .sha256) throws -> [UInt8] {
        Digest.hash(type, try Data(contentsOf: URL(fileURLWithPath: app + "/" + path)))
    }

    /// A version 2 seal of each path by its SHA-256 (`hash2`), as the files hold now.
    static func seal(_ app: String, _ paths: [String]) throws -> [String: ResourceSeal] {
        try Dictionary(uniqueKeysWithValues: paths.map { ($0, ResourceSeal(hash2: try digest(app, $0))) })
    }

    @Test func confirmsTheFilesWhoseContentIsTheSealedOne() throws {
        try withTemporaryFolder { folder in
            let app = try Self.makeApp(in: folder)
            let prefetch = try #require(FolderDigestPrefetch(app: app, threads: 2))
            defer { prefetch.finish() }
            let paths = ["a.png", "Sub/b.nib", "Sub/Deep/c.json", "en.lproj/d.strings"]
            // Some listed before the executable is known, the rest after.
            prefetch.listed(paths.prefix(2).map { "P.app/" + $0 })
            prefetch.begin(executable: "P", type: .sha256)
            prefetch.listed(paths.dropFirst(2).map { "P.app/" + $0 })
            var seal = try Self.seal(app, paths)
            seal["Sub/b.nib"]!.hash2![0] ^= 1
            let outcome = try #require(prefetch.confirm(against: seal, isVersion2: true, excluding: "P"))
            #expect(outcome.sealed == 4 && outcome.confirmed == 3)
            #expect(outcome.unconfirmed == ["Sub/b.nib"] && outcome.unsealed == [])
        }
    }

    /// A file longer than a worker's buffer is hashed in pieces, all of it: the sealed digest of the
    /// whole file confirms it, and a byte changed in its last piece does not.
    @Test func confirmsAFileLongerThanTheBufferByItsWholeContent() throws {
        try withTemporaryFolder { folder in
            let app = try Self.makeApp(in: folder)
            let size = FolderDigestPrefetch.bufferSize * 2 + 1234
            var bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) })
            try folder.create("P.app/big.bin", bytes)
            let sealed = Digest.hash(.sha256, bytes)
            bytes[size - 1] ^= 1
            try folder.create("P.app/changed.bin", bytes)
            let prefetch = try #require(FolderDigestPrefetch(app: app, threads: 2))
            defer { prefetch.finish() }
            prefetch.begin(executable: "P", type: .sha256)
            prefetch.listed(["P.app/big.bin", "P.app/changed.bin"])
            let seal = ["big.bin": ResourceSeal(hash2: sealed), "changed.bin": ResourceSeal(hash2: sealed)]
            let outcome = try #require(prefetch.confirm(against: seal, isVersion2: true, excluding: "P"))
            #expect(outcome.sealed == 2 && outcome.confirmed == 1)
            #expect(outcome.unconfirmed == ["changed.bin"])
        }
    }

    /// Only a seal that checks a file's content by one digest of the type hashed confirms it: not
    /// one of another type, nor a symbolic link's.
    @Test func confirmsOnlyASealOfTheTypeItHashed() throws {
        try withTemporaryFolder { folder in
            let app = try Self.makeApp(in: folder)
            let prefetch = try #require(FolderDigestPrefetch(app: app, threads: 1))
            defer { prefetch.finish() }
            prefetch.begin(executable: "P", type: .sha1)
            prefetch.listed(["P.app/a.png", "P.app/Sub/b.nib", "P.app/Sub/Deep/c.json"])
            let seal = try [
                "a.png": ResourceSeal(hash: Self.digest(app, "a.png", .sha1)),
                "Sub/b.nib": ResourceSeal(hash2: Self.digest(app, "Sub/b.nib")),
                "Sub/Deep/c.json": ResourceSeal(hash: Self.digest(app, "Sub/Deep/c.json", .sha1), symlink: "../a.png")
            ]
            let outcome = try #require(prefetch.confirm(against: seal, isVersion2: false, excluding: "P"))
            #expect(outcome.sealed == 3 && outcome.confirmed == 1)
            #expect(Set(outcome.unconfirmed) == ["Sub/b.nib", "Sub/Deep/c.json"])
        }
    }

    /// The executable, the signature's folder and nested code are not hashed, nor is a file that
    /// was never listed, has gone, or became a link: none of them is confirmed, whatever the seal.
    @Test func confirmsNothingItDidNotHash() throws {
        try withTemporaryFolder { folder in
            let app = try Self.makeApp(in: folder)
            let listed = try Self.listing(app)
            #expect(listed.contains("P.app/P") && listed.contains("P.app/Frameworks/X.framework/X"))
            let sealed = [
                "P", "_CodeSignature/CodeResources", "Frameworks/X.framework/X", "PlugIns/E.appex/E", "Sub/Deep/c.json", "a.png"
            ]
            var seal = try Self.seal(app, sealed)
            seal["never-listed.png"] = seal["a.png"]
            seal["en.lproj/d.strings"] = seal["a.png"]
            try FileManager.default.removeItem(atPath: app + "/Sub/Deep/c.json")
            try FileManager.default.removeItem(atPath: app + "/en.lproj/d.strings")
            try FileManager.default.createSymbolicLink(atPath: app + "/en.lproj/d.strings", withDestinationPath: "../a.png")
            let prefetch = try #require(FolderDigestPrefetch(app: app, threads: 2))
            defer { prefetch.finish() }
            prefetch.begin(executable: "P", type: .sha256)
            prefetch.listed(listed)
            #expect(["a.png", "Sub/b.nib", "Info.plist"].allSatisfy(prefetch.hashes))
            #expect(
                !["P", "_CodeSignature/CodeResources", "Frameworks/X.framework/X", "PlugIns/E.appex/E", ""].contains(where: prefetch.hashes)
            )
            let outcome = try #require(prefetch.confirm(against: seal, isVersion2: true, excluding: "P"))
            // Gone, and now a link: sealed, not confirmed; the executable and the rest: not hashed.
            #expect(outcome.sealed == 3 && outcome.confirmed == 1)
            #expect(Set(outcome.unconfirmed) == ["Sub/Deep/c.json", "en.lproj/d.strings"])
            #expect(Set(outcome.unsealed) == ["Info.plist", "Sub/b.nib"])
        }
    }

    /// The check's executable is not confirmed even when the prefetch took another file for it.
    @Test func confirmsNotTheChecksExecutable() throws {
        try withTemporaryFolder { folder in
            let app = try Self.makeApp(in: folder)
            let prefetch = try #require(FolderDigestPrefetch(app: app, threads: 1))
            defer { prefetch.finish() }
            prefetch.begin(executable: "Q", type: .sha256)
            prefetch.listed(["P.app/P", "P.app/a.png"])
            let outcome = try #require(prefetch.confirm(against: try Self.seal(app, ["P", "a.png"]), isVersion2: true, excluding: "P"))
            #expect(outcome.sealed == 1 && outcome.confirmed == 1 && outcome.unconfirmed == [] && outcome.unsealed == [])
        }
    }

    @Test func aPrefetchThatNeverBeganConfirmsNothing() throws {
        try withTemporaryFolder { folder in
            let app = try Self.makeApp(in: folder)
            let seal = try Self.seal(app, ["a.png"])
            let prefetch = try #require(FolderDigestPrefetch(app: app, threads: 2))
            prefetch.listed(["P.app/a.png"])
            #expect(!prefetch.isStarted)
            #expect(prefetch.confirm(against: seal, isVersion2: true, excluding: "P") == nil)
            prefetch.finish()
            // Nor one that was finished before it began.
            let finished = try #require(FolderDigestPrefetch(app: app, threads: 2))
            finished.finish()
            finished.begin(executable: "P", type: .sha256)
            finished.listed(["P.app/a.png"])
            #expect(!finished.isStarted)
            #expect(finished.confirm(against: seal, isVersion2: true, excluding: "P") == nil)
        }
    }

    @Test func coversOnlyItsOwnApp() throws {
        try withTemporaryFolder { folder in
            let prefetch = try #require(FolderDigestPrefetch(app: try Self.makeApp(in: folder), threads: 1))
            defer { prefetch.finish() }
            #expect(prefetch.covers("P.app"))
            #expect(!prefetch.covers("P.app/Frameworks/X.framework") && !prefetch.covers("Q.app") && !prefetch.covers("P"))
        }
    }
}

/// The prefetch wired as `codesign verify` of a folder wires it: its keys are the storage's, its
/// guess of the hash is the seal's, and every sealed resource of a real app is confirmed, so the
/// check reads none of them again.
@Suite(Fixtures.enabled) struct FolderDigestPrefetchFixtureTests {
    @Test(arguments: ["ipa-server_Test_dev-xcode12.ipa", "bitbar_BitBarSampleApp_react-native_der-entitlements.ipa"])
    func everySealedResourceOfARealAppIsConfirmed(_ ipa: String) throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(ipa, in: folder)
            let prefetch = try #require(FolderDigestPrefetch(app: app.app, threads: 2))
            defer { prefetch.finish() }
            let package = try AppPackage.open(app.app, folderDetail: .kinds) { prefetch.listed($0) }
            var began: (String, HashType)?
            let early = try #require(
                EarlyExecutableVerifier.start(app: app.app) { executable, type in
                    began = (executable, type)
                    prefetch.begin(executable: executable, type: type)
                })
            try early.pagePool.wait()
            #expect(began?.0 == early.executable && began?.1 == .sha256)
            let seal = try CodeResources(data: try #require(early.codeResourcesData))
            let root = package.app.root
            var awaited: Set<String> = []
            for (path, entry) in seal.files2 where path != early.executable && entry.symlink == nil {
                guard let file = package.app.storage.files[root + "/" + path], !file.isSymlink,
                    ResourceSealVerifier.soleDigest(entry, type: .sha256, isVersion2: true) != nil,
                    !CodeItemLocator.places.contains(where: { path.hasPrefix($0.folder + "/") })
                else { continue }
                awaited.insert(path)
            }
            #expect(awaited.count >= 8)
            let outcome = try #require(prefetch.confirm(against: seal.files2, isVersion2: true, excluding: early.executable))
            #expect(outcome.confirmed == awaited.count && outcome.unconfirmed == [])
        }
    }

    /// `verify(path:)` hands the prefetch to the check only for an index from the walk by kinds,
    /// which listed the files the prefetch hashed; an index from the full walk has sizes.
    @Test func onlyTheWalkByKindsServesThePrefetch() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(CodeSealTamperTests.test, in: folder)
            #expect(CodeSealVerifier.isIndexedByKinds(try AppPackage.open(app.app, folderDetail: .kinds)))
            #expect(!CodeSealVerifier.isIndexedByKinds(try AppPackage.open(app.app, folderDetail: .full)))
        }
    }

    /// Two names that are one key (the same text in two Unicode forms) send the folder to the full
    /// walk: the prefetch, which hashed what the walk by kinds listed, stops unused, and the report
    /// is the plain check's.
    @Test func aFolderTheFullWalkIndexesIsCheckedWithoutThePrefetch() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(CodeSealTamperTests.test, in: folder)
            try app.write("Base.lproj/Caf\u{E9}.txt", Data("one".utf8))
            try app.write("Base.lproj/Cafe\u{301}.txt", Data("two".utf8))
            let package = try AppPackage.open(app.app, folderDetail: .kinds)
            #expect(!CodeSealVerifier.isIndexedByKinds(package))
            let verifier = CodeSealVerifier()
            #expect(try verifier.verify(path: app.app).plist() == verifier.verify(AppPackage.open(app.app)).plist())
        }
    }

    /// What the prefetch confirms or leaves, the report says what the plain check says.
    @Test(arguments: ["modified", "link", "missing", "added", "version 1 seal"])
    func aTamperedResourceIsReportedAsWithoutThePrefetch(_ tamper: String) throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(CodeSealTamperTests.test, in: folder)
            let files = FileManager.default
            switch tamper {
            case "modified": try app.flipByte("Assets.car", at: 100)
            case "link":
                try files.removeItem(atPath: app.path("Base.lproj/LaunchScreen.storyboardc/Info.plist"))
                try files.createSymbolicLink(
                    atPath: app.path("Base.lproj/LaunchScreen.storyboardc/Info.plist"),
                    withDestinationPath: "../Main.storyboardc/Info.plist")
            case "missing": try files.removeItem(atPath: app.path("Base.lproj/Main.storyboardc/Info.plist"))
            case "added": try app.write("Base.lproj/extra.nib", Data("extra".utf8))
            default:
                // Only the SHA-1 seal of version 1 left: the prefetch guesses SHA-1.
                var seal = try #require(try PropertyList(data: app.data("_CodeSignature/CodeResources")).value.dictionaryValue)
                seal["files2"] = nil
                seal["rules2"] = nil
                try app.write("_CodeSignature/CodeResources", try PropertyList(.dictionary(seal)).data(format: .xml))
                #expect(EarlyExecutableVerifier.resourceHashType(try app.data("_CodeSignature/CodeResources")) == .sha1)
            }
            let verifier = CodeSealVerifier()
            let withPrefetch = try verifier.verify(path: app.app)
            let plain = try verifier.verify(AppPackage.open(app.app))
            #expect(withPrefetch.plist() == plain.plist())
            #expect(!withPrefetch.problems.isEmpty)
        }
    }
}

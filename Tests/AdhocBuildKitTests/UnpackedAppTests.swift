import CodeSign
import Crypto
import Foundation
import IPAKit
import SystemSupport
import TestSupport
import Testing

@testable import AdhocBuildKit

/// Issue 32: an ipa unpacked for a new ipa writes only what a change reads or writes (every
/// Info.plist, profile, seal and Mach-O); the rest stays in the archive, sealed and checked by the
/// digests taken as it was read.
@Suite struct UnpackedAppTests {
    /// Every fixture ipa, with a name for messages.
    static func fixtureIPAs() -> [(path: String, place: String)] {
        Fixtures.files(in: "ipa").filter { $0.pathExtension == "ipa" }.map { ($0.path, $0.lastPathComponent) }
    }

    @Test(Fixtures.enabled) func whatAChangeReadsIsWrittenAndEveryFileLeftHasTheDigestsOfItsEntry() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let ipas = Self.fixtureIPAs()
            #expect(ipas.count >= 9)
            for (index, (ipa, place)) in ipas.enumerated() {
                let work = folder.path("work-\(index)")
                let unpacked = try UnpackedApp.unpack(ipa, into: work, limits: .standard, leaving: true)
                let reader = try ZipArchiveReader(path: ipa)
                var left = 0
                for entry in reader.entries where !entry.isDirectory && !entry.isSymlink {
                    let path = work + "/" + entry.name
                    let bytes = try reader.data(entry)
                    let isWritten = FileIO.kind(of: path) == .file
                    let mustBeWritten =
                        ["Info.plist", "CodeResources", "embedded.mobileprovision", "environment.plist"].contains(
                            (entry.name as NSString).lastPathComponent) || MachOFile.looksLikeMachO(bytes.prefix(4))
                        || !entry.name.contains("/") || bytes.isEmpty || entry.isExecutable
                    if mustBeWritten { #expect(isWritten, "\(place): \(entry.name) is written") }
                    guard !isWritten else { continue }
                    left += 1
                    #expect(
                        unpacked.digests.knownDigests(at: path, types: [.sha1, .sha256])
                            == [.sha1: Digest.sha1(bytes), .sha256: Digest.sha256(bytes)], "\(place): \(entry.name)")
                }
                #expect(left > 0, "\(place): nothing left in the archive")
                #expect(unpacked.carried.leftInArchive(under: work).count == left, "\(place)")
            }
        }
    }

    /// Options to sign with the test RSA identity and a wildcard profile for its certificate.
    static func signing(in folder: TemporaryFolder) throws -> BundleSigningOptions {
        let made = try TestIdentities.make(in: folder)
        let profile = try TestProfile(certificates: [
            try SigningIdentity(p12: made.rsa, password: .file(made.passwordFile)).certificate.der
        ])
        .write("wildcard.mobileprovision", with: made)
        return try SigningRequest(identity: made.rsa, password: .file(made.passwordFile), appProfile: profile).options()
    }

    /// A copied app's check takes the digests of files unchanged since they were copied, and reads
    /// again one changed since (in place, as a link shared with the build would be).
    @Test func theCheckOfACopiedAppReadsAgainAFileChangedSinceItWasHashed() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let app = folder.path("ShoutOut.app")
            let digests = try HashingCopy.copy(ReleasePipelineTests.exampleApp, to: app)
            let signing = try Self.signing(in: folder)
            _ = try BundleSigner.sign(bundle: app, options: signing, digests: digests)
            let check = {
                try SignatureReport.verify(copy: app, carried: nil, known: digests, now: Date(), allowExpired: true, limits: .standard)
            }
            let valid = try check()
            #expect(valid.state == .valid, "\(valid.summary)")
            let resource = try #require(
                try FileManager.default.contentsOfDirectory(atPath: app).sorted().first { $0.hasSuffix(".png") || $0.hasSuffix(".car") })
            #expect(digests.knownDigests(at: app + "/" + resource, types: [.sha256]) != nil)
            let handle = try #require(FileHandle(forUpdatingAtPath: app + "/" + resource))
            try handle.write(contentsOf: Data([0x42]))
            try handle.close()
            #expect(digests.knownDigests(at: app + "/" + resource, types: [.sha256]) == nil)
            let broken = try check()
            #expect(broken.state == .broken, "\(broken.summary)")
            #expect(broken.result.report.problems.contains { $0.description.contains(resource) }, "\(broken.summary)")
        }
    }

    @Test(Fixtures.enabled) func theSealOfASignedUnpackedAppIsJudgedAsItsIPAsAndAFileLeftThatIsReplacedBreaksIt() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let signing = try Self.signing(in: folder)
            for (index, (ipa, place)) in Self.fixtureIPAs().enumerated() {
                let unpacked = try UnpackedApp.unpack(ipa, into: folder.path("work-\(index)"), limits: .standard, leaving: true)
                _ = try BundleSigner.sign(bundle: unpacked.app, options: signing, digests: unpacked.digests)
                let out = folder.path("out-\(index).ipa")
                _ = try IPAPackager(options: unpacked.packaging(IPAPackager.Options())).package(unpacked.app, to: out)
                let folderCheck = try SignatureReport.verify(
                    copy: unpacked.app, carried: unpacked.carried, known: unpacked.digests, now: Date(), allowExpired: false,
                    limits: .standard)
                let ipaCheck = try SignatureReport.verify(path: out)
                #expect(folderCheck.state == .valid, "\(place): \(folderCheck.summary)")
                #expect(folderCheck.state == ipaCheck.state && folderCheck.cdhash == ipaCheck.cdhash, "\(place)")
                // A file put where one was left is the one the check reads: the seal no longer holds.
                let replaced = try #require(unpacked.carried.leftInArchive(under: unpacked.app).map(\.path).sorted().first)
                try Data("not what was sealed".utf8).write(to: URL(fileURLWithPath: replaced))
                let broken = try SignatureReport.verify(
                    copy: unpacked.app, carried: unpacked.carried, known: unpacked.digests, now: Date(), allowExpired: false,
                    limits: .standard)
                #expect(broken.state == .broken, "\(place): \(broken.summary)")
                let name = (replaced as NSString).lastPathComponent
                #expect(broken.result.report.problems.contains { $0.description.contains(name) }, "\(place): \(broken.summary)")
            }
        }
    }
}

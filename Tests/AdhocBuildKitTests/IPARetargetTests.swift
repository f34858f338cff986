import CodeSign
import Foundation
import IPAKit
import PlistKit
import SystemSupport
import TestSupport
import Testing

@testable import AdhocBuildKit

/// Issue 32: `release` takes an exported `.ipa` (or a `.zip` holding one `.app`) and publishes it
/// re-targeted for an environment, re-numbered and re-signed, with every entry it did not change
/// carried into the new ipa as the same compressed bytes.
@Suite struct IPARetargetTests {
    static let oracle = Fixtures.packageRoot.appendingPathComponent("Tests/Oracles/zip_entries_oracle.py").path

    /// One entry as Python's zipfile reads it (``oracle``), after every entry's CRC was checked.
    struct OracleEntry: Decodable {
        var name: String
        var crc: UInt32
        var method: Int
        var size: Int
        var mode: UInt32
        var storedSHA256: String

        enum CodingKeys: String, CodingKey {
            case name, crc, method, size, mode
            case storedSHA256 = "stored_sha256"
        }
    }

    static func entries(_ archive: String) throws -> [OracleEntry] {
        let result = try ProcessResult.run("/usr/bin/env", ["python3", oracle, archive])
        try #require(result.status == 0, "zipfile: \(result.stderrText)")
        return try JSONDecoder().decode([OracleEntry].self, from: result.stdout)
    }

    /// Files a re-targeted, re-signed build may hold with other bytes: plists the environment and
    /// the build number change, what the signer writes, and code (every Mach-O is signed again).
    static func mayChange(_ entry: OracleEntry, in archive: ZipArchiveReader) throws -> Bool {
        let name = (entry.name as NSString).lastPathComponent
        if ["Info.plist", "CodeResources", "embedded.mobileprovision", "environment.plist"].contains(name) { return true }
        guard entry.size >= 4, let zipEntry = archive.entry(named: entry.name), !zipEntry.isSymlink else { return false }
        return MachOFile.looksLikeMachO(try archive.data(zipEntry).prefix(4))
    }

    /// Every entry of `input` that the release had no reason to change is in `output` under its
    /// name as the same stored bytes, with its mode, and in the same order; returns how many.
    static func expectCarried(from input: String, to output: String, _ place: String) throws -> Int {
        let before = try entries(input), after = try entries(output)
        let reader = try ZipArchiveReader(path: input)
        let byName = Dictionary(after.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var carried = 0
        for entry in before where !entry.name.hasSuffix("/") {
            guard let new = byName[entry.name] else {
                Issue.record("\(place): \(entry.name) is missing from the new ipa")
                continue
            }
            if entry.mode != 0 { #expect(new.mode == entry.mode, "\(place): \(entry.name) mode") }
            if try mayChange(entry, in: reader) { continue }
            #expect(new.storedSHA256 == entry.storedSHA256 && new.method == entry.method, "\(place): \(entry.name) compressed again")
            carried += 1
        }
        let kept = Set(before.map(\.name))
        let order = after.map(\.name).filter { kept.contains($0) }
        #expect(order == before.map(\.name).filter { byName[$0] != nil }, "\(place): the entries' order")
        return carried
    }

    /// An environment `QA` that sets an Info.plist key and writes environment.plist.
    static func environments(_ folder: TemporaryFolder) throws -> String {
        let qa: PlistValue = ["Info": ["AdhocBuildEnvironment": "QA"], "Settings": ["Server": "https://qa.example.com"]]
        return try folder.environments(["QA": qa])
    }

    static func options(_ folder: TemporaryFolder, input: String) throws -> ReleasePipeline.Options {
        var options = ReleasePipeline.Options(
            environment: "QA", input: input, baseURL: "https://builds.example.com/", out: folder.path("dist"))
        options.environmentsFolder = try environments(folder)
        options.processEnvironment = [:]
        options.buildNumber = .exactly("4711")
        // The example app's profile (a device installs nothing without one); the fixtures carry their own.
        if !input.hasPrefix(Fixtures.folder.path) { options.profile = try ReleasePipelineTests.profile(folder) }
        return options
    }

    /// The example app zipped as an ipa by Info-ZIP at its fastest level (unsigned): an entry this
    /// tool compressed again would come out as other bytes.
    static func exampleIPA(_ folder: TemporaryFolder) throws -> String {
        let ipa = folder.path("ShoutOut.ipa")
        try FileManager.default.createDirectory(atPath: folder.path("zip/Payload"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ReleasePipelineTests.exampleApp, toPath: folder.path("zip/Payload/ShoutOut.app"))
        let zipped = try ProcessResult.run("/usr/bin/zip", ["-1", "-qry", ipa, "Payload"], in: folder.path("zip"))
        try #require(zipped.status == 0, "zip: \(zipped.stderrText)")
        return ipa
    }

    static func infoPlist(_ ipa: String, app: String) throws -> PlistDictionary {
        try #require(try PropertyList(data: try ZipArchiveReader(path: ipa).data(named: "Payload/\(app)/Info.plist")).value.dictionaryValue)
    }

    @Test(Fixtures.enabled) func everyFixtureIPAIsRetargetedRenumberedResignedAndKeepsWhatItDidNotChange() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let made = try TestIdentities.make(in: folder)
            let profile = try TestProfile(certificates: [
                try SigningIdentity(p12: made.rsa, password: .file(made.passwordFile)).certificate.der
            ])
            .write("wildcard.mobileprovision", with: made)
            let ipas = Fixtures.files(in: "ipa").filter { $0.pathExtension == "ipa" }
            #expect(ipas.count >= 9)
            for (index, url) in ipas.enumerated() {
                let place = url.lastPathComponent
                var options = try Self.options(folder, input: url.path)
                options.out = folder.path("dist-\(index)")
                options.signing = SigningRequest(identity: made.rsa, password: .file(made.passwordFile), appProfile: profile)
                let result: ReleasePipeline.Result
                do { result = try ReleasePipeline(options: options).run() } catch {
                    Issue.record("\(place): \(error)")
                    continue
                }
                #expect(result.build == "4711", "\(place)")
                #expect(result.signature == "valid", "\(place): \(result.signatureSummary)")
                let app = try #require(
                    try ZipArchiveReader(path: result.ipa).entries.first {
                        $0.name.hasSuffix(".app/") || $0.name.hasSuffix(".app/Info.plist")
                    }?.name.split(separator: "/")[1])
                let info = try Self.infoPlist(result.ipa, app: String(app))
                #expect(info["AdhocBuildEnvironment"]?.stringValue == "QA", "\(place)")
                #expect(info["CFBundleVersion"]?.stringValue == "4711", "\(place)")
                let carried = try Self.expectCarried(from: url.path, to: result.ipa, place)
                #expect(carried > 0, "\(place): nothing carried")
                let unzip = try ProcessResult.run("/usr/bin/unzip", ["-tq", result.ipa])
                #expect(unzip.status == 0, "\(place): unzip -t: \(unzip.stdoutText)")
                let verified = try CodeSignatureVerifier().verify(path: result.ipa)
                #expect(verified.report.isValid, "\(place): \(verified.report.problems.map(\.description))")
            }
        }
    }

    @Test func anUnsignedIPAIsRetargetedWithoutAnIdentityCarryingItsUnchangedEntries() throws {
        try withTemporaryFolder { folder in
            let ipa = try Self.exampleIPA(folder)
            let before = try Data(contentsOf: URL(fileURLWithPath: ipa))
            let result = try ReleasePipeline(options: try Self.options(folder, input: ipa)).run()
            #expect(try Data(contentsOf: URL(fileURLWithPath: ipa)) == before, "the input is left as it was")
            let info = try Self.infoPlist(result.ipa, app: "ShoutOut.app")
            #expect(info["AdhocBuildEnvironment"]?.stringValue == "QA")
            #expect(info["CFBundleVersion"]?.stringValue == "4711")
            let reader = try ZipArchiveReader(path: result.ipa)
            #expect(reader.entry(named: "Payload/ShoutOut.app/environment.plist") != nil)
            // The icon did not change: the same compressed bytes (code and plists may change).
            #expect(try Self.expectCarried(from: ipa, to: result.ipa, "ShoutOut.ipa") >= 1)
        }
    }

    @Test func aZipHoldingAnAppIsReleasedAsAnIPA() throws {
        try withTemporaryFolder { folder in
            let zip = folder.path("build.zip")
            let parent = (ReleasePipelineTests.exampleApp as NSString).deletingLastPathComponent
            let zipped = try ProcessResult.run("/usr/bin/zip", ["-qry", zip, "ShoutOut.app"], in: parent)
            try #require(zipped.status == 0, "zip: \(zipped.stderrText)")
            let result = try ReleasePipeline(options: try Self.options(folder, input: zip)).run()
            #expect(result.ipa.hasSuffix("/ShoutOut.ipa"))
            let info = try Self.infoPlist(result.ipa, app: "ShoutOut.app")
            #expect(info["CFBundleVersion"]?.stringValue == "4711")
            #expect(try ZipArchiveReader(path: result.ipa).entries.allSatisfy { $0.name.hasPrefix("Payload/") })
        }
    }

    @Test func aSignedIPAIsRefusedWithoutAnIdentityAndLeavesNoRelease() throws {
        try withTemporaryFolder { folder in
            let ipas = Fixtures.files(in: "ipa").filter { $0.lastPathComponent.hasPrefix("ipa-server_Test_dev-xcode12") }
            let ipa = try #require(ipas.first, "the Xcode 12 fixture").path
            var options = try Self.options(folder, input: ipa)
            options.allowExpired = true  // its profile expired in 2022: the seal is what is tested here
            let failure = #expect(throws: Diagnostic.self) { try ReleasePipeline(options: options).run() }
            #expect(
                failure?.message.contains("allow-broken-signature") == true || failure?.hint?.contains("allow-broken-signature") == true,
                "\(String(describing: failure))")
            #expect(!FileManager.default.fileExists(atPath: folder.path("dist/QA")))
        }
    }

    @Test func anExecutableThatLostItsModeGetsItBackWithAWarningFromAFolderOrAnIPA() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let app = folder.path("ShoutOut.app")
            try FileManager.default.copyItem(atPath: ReleasePipelineTests.exampleApp, toPath: app)
            chmod(app + "/ShoutOut", 0o644)
            let ipa = folder.path("lost-modes.ipa")
            _ = try IPAPackager().package(app, to: ipa)
            for (index, input) in [app, ipa].enumerated() {
                var options = try Self.options(folder, input: input)
                options.out = folder.path("dist-\(index)")
                let result = try ReleasePipeline(options: options).run()
                let warning = result.warnings.first { $0.message.contains("had lost the execute permission") }?.report
                #expect(warning?.contains("ShoutOut.app/ShoutOut") == true, "\(result.warnings)")
                #expect(warning?.contains(".adhocbuild-tmp") == false, "\(result.warnings)")
                let entry = try ZipArchiveReader(path: result.ipa).entry(named: "Payload/ShoutOut.app/ShoutOut")
                #expect(entry?.mode.map { $0 & 0o111 == 0o111 } == true, "\(input): \(String(describing: entry?.mode))")
            }
            #expect(!FileManager.default.isExecutableFile(atPath: app + "/ShoutOut"), "the input is left as it was")
        }
    }
}

import AdhocBuildKit
import AssetCatalog
import CodeSign
import Foundation
import IPAKit
import PlistKit
import SystemSupport
import TestSupport
import Testing
import XcodeProjectEditing

/// What `env apply`, `version bump` and `release` do to an Apple-signed app: every file they change
/// is sealed by its signature, so the change is refused before anything is written unless the
/// signature may break (`--allow-broken-signature`).
@Suite(Fixtures.enabled) struct SignedAppChangeTests {
    /// `Payload/Test.app` of the Apple-signed fixture, unzipped with Python's zipfile into `folder`.
    static func signedApp(_ folder: TemporaryFolder) throws -> String {
        let unpacked = folder.path("unpacked")
        let unzip = try ProcessResult.run(
            "/usr/bin/env",
            [
                "python3", "-c", "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])",
                Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path, unpacked
            ])
        try #require(unzip.status == 0, "unzip: \(unzip.stderrText)")
        // zipfile drops the execute bits; the verifier does not need them, the release's Verify step does.
        let app = unpacked + "/Payload/Test.app"
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: app + "/Test")
        return app
    }

    /// An environments folder whose Staging renames the app.
    static func environments(_ folder: TemporaryFolder) throws -> String {
        try folder.environments(["Staging": ["Info": ["CFBundleDisplayName": "Test β"]]])
    }

    static func staging(_ folder: TemporaryFolder) throws -> ResolvedEnvironment {
        try EnvironmentResolver(store: try EnvironmentStore(at: try environments(folder)), processEnvironment: [:])
            .resolveForApplying("Staging").0
    }

    @Test func theFixtureAppIsSigned() throws {
        try withTemporaryFolder { folder in
            let app = try Self.signedApp(folder)
            #expect(SealGuard.status(ofApp: app) == .signed)
        }
    }

    @Test func applyingAnEnvironmentToASignedAppIsRefusedBeforeAnythingIsWritten() throws {
        try withTemporaryFolder { folder in
            let app = try Self.signedApp(folder)
            let before = try Data(contentsOf: URL(fileURLWithPath: app + "/Info.plist"))
            do {
                _ = try EnvironmentApplier(environment: try Self.staging(folder)).apply(toApp: app)
                Issue.record("applied to a signed app")
            } catch let error as Diagnostic where error.is(BuildProblem.self) {
                #expect(
                    error.description.contains(
                        "\(app): applying Staging changes Info.plist and adds environment.plist, which the signature of Test.app seals; "
                            + "iOS will refuse to install it"), "\(error)")
                #expect(error.hint?.contains("--allow-broken-signature") == true)
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: app + "/Info.plist")) == before)
            #expect(!FileManager.default.fileExists(atPath: app + "/environment.plist"))
        }
    }

    @Test func allowingABrokenSignatureAppliesAndWarns() throws {
        try withTemporaryFolder { folder in
            let app = try Self.signedApp(folder)
            let report = try EnvironmentApplier(environment: try Self.staging(folder), allowBrokenSignature: true).apply(toApp: app)
            #expect(report.warnings.count == 1)
            #expect(report.warnings.first?.code == .build(.signatureBroken))
            #expect(report.warnings.first?.description.contains("which the signature of Test.app seals") == true, "\(report.warnings)")
            #expect(FileManager.default.fileExists(atPath: app + "/environment.plist"))
        }
    }

    @Test func bumpingTheBuildNumberOfASignedAppIsRefusedBeforeAnythingIsWritten() throws {
        try withTemporaryFolder { folder in
            let app = try Self.signedApp(folder)
            let before = try Data(contentsOf: URL(fileURLWithPath: app + "/Info.plist"))
            do {
                try VersionBumper(target: .app(app), field: .build).bump(.exactly("999"))
                Issue.record("bumped a signed app")
            } catch let error as Diagnostic where error.is(BuildProblem.self) {
                #expect(
                    error.description.contains("setting the build number to 999 changes Info.plist, which the signature of Test.app seals"),
                    "\(error)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: app + "/Info.plist")) == before)
            var warnings: [Diagnostic] = []
            _ = try VersionBumper(target: .app(app), field: .build, allowBrokenSignature: true).bump(.exactly("999"), warnings: &warnings)
            #expect(warnings.count == 1 && warnings[0].code == .build(.signatureBroken), "\(warnings)")
            #expect(warnings.first?.message.contains("iOS will refuse to install it until it is re-signed") == true)
        }
    }

    /// A dry run does what the real run would, writing nothing: on a signed app it refuses with the
    /// same error (it warned `going on: --allow-broken-signature` without the flag and went on).
    @Test func aDryRunOnASignedAppIsRefusedAsTheRealRunIs() throws {
        try withTemporaryFolder { folder in
            let app = try Self.signedApp(folder)
            let environment = try Self.staging(folder)
            let before = folder.snapshot()
            let real = expectDiagnostic(BuildProblem.self) { try EnvironmentApplier(environment: environment).apply(toApp: app) }
            let dry = expectDiagnostic(BuildProblem.self) {
                try EnvironmentApplier(environment: environment, dryRun: true).apply(toApp: app)
            }
            #expect(dry == real)
            let realBump = expectDiagnostic(BuildProblem.self) { try VersionBumper(target: .app(app), field: .build).bump(.exactly("9")) }
            let dryBump = expectDiagnostic(BuildProblem.self) {
                try VersionBumper(target: .app(app), field: .build, dryRun: true).bump(.exactly("9"))
            }
            #expect(dryBump == realBump)
            // Allowed, the dry run warns as the real run does, and still writes nothing.
            let allowed = try EnvironmentApplier(environment: environment, dryRun: true, allowBrokenSignature: true).apply(toApp: app)
            #expect(allowed.warnings.count == 1 && allowed.warnings[0].message.hasSuffix("(going on: --allow-broken-signature)"))
            var warnings: [Diagnostic] = []
            _ = try VersionBumper(target: .app(app), field: .build, dryRun: true, allowBrokenSignature: true).bump(
                .exactly("9"), warnings: &warnings)
            #expect(warnings.count == 1 && warnings[0].message.hasSuffix("(going on: --allow-broken-signature)"))
            #expect(folder.snapshot() == before)
        }
    }

    func releaseOptions(_ folder: TemporaryFolder, app: String) throws -> ReleasePipeline.Options {
        var options = ReleasePipeline.Options(
            environment: "Staging", input: app, baseURL: "https://builds.example.com/test/", out: folder.path("dist"))
        options.environmentsFolder = try Self.environments(folder)
        options.processEnvironment = [:]
        options.now = PlistDate(iso8601: "2021-06-01T00:00:00Z")!.date  // while the fixture's profile was valid
        return options
    }

    /// A release of a build whose profile has expired fails before anything is copied, naming the
    /// profile; with `allowExpired` it publishes, warning at Verify, and the signature check lets the
    /// expired profile and certificate through with warnings (it is not what `allowBrokenSignature` is for).
    @Test func aReleaseOfAnExpiredProfileFailsFirstUnlessAllowed() throws {
        try withTemporaryFolder { folder in
            // The ipa as it is: the environment changes nothing in it, so the signature holds.
            let app = Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path
            var options = try releaseOptions(folder, app: app)
            options.now = Date()
            options.environmentsFolder = try folder.environments(["Staging": [:]])
            let failure = try #require(throws: Diagnostic.self) { try ReleasePipeline(options: options).run() }
            #expect(failure.subject == "Check the provisioning profile")
            #expect(
                failure.message
                    == "\(app): the provisioning profile \"iOS Team Provisioning Profile: com.ineva.test-rtmp.Test\" it embeds expired on "
                    + "2022-05-09T06:59:38Z; iOS will not install the build, and its page would say it cannot be installed")
            #expect(failure.hint?.contains("--allow-expired") == true)
            #expect((try? FileManager.default.contentsOfDirectory(atPath: folder.path("dist"))) ?? [] == [])
            options.allowExpired = true
            let result = try ReleasePipeline(options: options).run()
            #expect(result.signature == "valid", "\(result.signatureSummary)")
            #expect(
                result.warnings.contains {
                    $0.report.contains("expired on 2022-05-09T06:59:38Z; iOS will not install it (going on: --allow-expired)")
                })
            #expect(
                result.warnings.map(\.report).contains {
                    $0.hasPrefix("Payload/Test.app: signer certificate \"Apple Development: Qin Junru (CSBXB8DEZA)\" expired on 2022-04-17")
                        && $0.hasSuffix("(going on: --allow-expired)")
                }, "\(result.warnings)")
            let page = try String(contentsOfFile: result.releaseFolder + "/index.html", encoding: .utf8)
            #expect(page.contains("its provisioning profile expired on 2022-05-09 06:59 UTC"))
        }
    }

    @Test func aReleaseThatBreaksTheSignatureFailsAndPublishesNothing() throws {
        try withTemporaryFolder { folder in
            let app = try Self.signedApp(folder)
            do {
                _ = try ReleasePipeline(options: try releaseOptions(folder, app: app)).run()
                Issue.record("released a broken signature")
            } catch let failure as Diagnostic where failure.code == .build(.stepFailed) {
                #expect(failure.subject == "Apply environment Staging")
                #expect(
                    failure.message.contains(
                        "\(app): applying Staging changes Info.plist and adds environment.plist, which the signature of Test.app seals"),
                    "\(failure)")
                #expect(!failure.description.contains(".adhocbuild-tmp"), "\(failure)")
                #expect(failure.hint?.contains("--allow-broken-signature") == true)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("dist")) == [])
        }
    }

    @Test func withAllowBrokenSignatureTheReleasePublishesAndSaysItWillNotInstall() throws {
        try withTemporaryFolder { folder in
            var options = try releaseOptions(folder, app: try Self.signedApp(folder))
            options.allowBrokenSignature = true
            let result = try ReleasePipeline(options: options).run()
            #expect(result.signature == "broken")
            #expect(result.signatureSummary.hasPrefix("the signature of Test.app is broken (Payload/Test.app: Info.plist: modified"))
            #expect(
                result.warnings.contains {
                    $0.code == .build(.signatureBroken) && $0.report.contains("publishing it anyway (--allow-broken-signature)")
                }, "\(result.warnings)")
            #expect(!result.warnings.contains { $0.report.contains(".adhocbuild-tmp") }, "\(result.warnings)")
            let page = try String(contentsOfFile: result.releaseFolder + "/index.html", encoding: .utf8)
            #expect(page.contains("id=\"broken-signature\""))
            #expect(page.contains("will not install it until it is re-signed"))
            let index = try String(contentsOfFile: folder.path("dist/index.html"), encoding: .utf8)
            #expect(index.contains("Signature broken: will not install until it is re-signed"))
            for file in ["build.json", "version.json"] {
                let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: result.releaseFolder + "/" + file)))
                #expect((json as? [String: Any])?["signature"] as? String == "broken", "\(file)")
            }
        }
    }

    /// The fixture ipa as it is: its signature holds, and the release says so. Its icon, kept only in
    /// Assets.car, is on the page, in the manifest and in the index, with no warning about it.
    @Test func anIntactSignedIpaReleasesWithAValidSignature() throws {
        try withTemporaryFolder { folder in
            var options = try releaseOptions(folder, app: Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path)
            options.environmentsFolder = try folder.environments(["Staging": ["Info": [:]]], folder: "plain")
            let result = try ReleasePipeline(options: options).run()
            #expect(result.signature == "valid")
            #expect(result.signatureSummary.hasPrefix("the signature of Test.app holds (signed by \"Apple Development: Qin Junru"))
            let page = try String(contentsOfFile: result.releaseFolder + "/index.html", encoding: .utf8)
            #expect(!page.contains("broken-signature"))
            #expect(page.contains("<img src=\"icon-512.png\""))
            #expect(!result.warnings.contains { $0.report.contains("icon") }, "\(result.warnings)")
            for (file, size) in [("icon-57.png", 57), ("icon-512.png", 512)] {
                let icon = try RGBAImage(pngData: Data(contentsOf: URL(fileURLWithPath: result.releaseFolder + "/" + file)))
                #expect(icon.width == size && icon.height == size, "\(file)")
            }
            let manifest = try String(contentsOfFile: result.releaseFolder + "/manifest.plist", encoding: .utf8)
            #expect(manifest.contains("display-image") && manifest.contains("full-size-image"))
            let index = try String(
                contentsOfFile: (result.releaseFolder as NSString).deletingLastPathComponent + "/../index.html", encoding: .utf8)
            #expect(index.contains("icon-57.png"), "the build index shows no icon")
        }
    }
}

import Foundation
import IPAKit
import PlistKit
import SystemSupport
import TestSupport
import Testing
import XcodeProjectEditing

@testable import AdhocBuildKit

@Suite struct ReleasePipelineTests {
    static var exampleApp: String { Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut/ShoutOut.app").path }

    /// A development profile for the example app, made with openssl by the project's script.
    static func profile(_ folder: TemporaryFolder) throws -> String {
        let path = folder.path("example.mobileprovision")
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/make-example-profile.sh").path
        let result = try ProcessResult.run("/bin/bash", [script, path])
        try #require(result.status == 0, "make-example-profile.sh: \(result.stderrText)")
        return path
    }

    func options(_ folder: TemporaryFolder, environment: String = "Staging") throws -> ReleasePipeline.Options {
        var options = ReleasePipeline.Options(
            environment: environment, input: Self.exampleApp, baseURL: "https://builds.example.com/shoutout/",
            out: folder.path("dist"))
        options.environmentsFolder = SampleEnvironments.path
        options.profile = try Self.profile(folder)
        options.processEnvironment = [:]
        return options
    }

    @Test func aReleaseLandsInItsFolderWithLatestAndTheIndex() throws {
        try withTemporaryFolder { folder in
            var options = try options(folder)
            options.buildNumber = .exactly("42")
            let before = try Data(contentsOf: URL(fileURLWithPath: Self.exampleApp + "/Info.plist"))
            let result = try ReleasePipeline(options: options).run()
            #expect(result.releasePath == "Staging/1.4.0-42")
            #expect(result.pageURL == "https://builds.example.com/shoutout/Staging/1.4.0-42/index.html")
            // The example app is unsigned: a warning that says so, never a refusal.
            #expect(result.signature == "unsigned")
            #expect(
                result.warnings.contains(
                    Diagnostic(
                        .build(.signature), "ShoutOut.app is unsigned; iOS will not install it until it is signed", severity: .warning)),
                "\(result.warnings)")
            let release = folder.path("dist/Staging/1.4.0-42")
            for file in ["ShoutOut.ipa", "manifest.plist", "index.html", "icon-57.png", "icon-512.png", "version.json", "build.json"] {
                #expect(FileManager.default.fileExists(atPath: release + "/" + file), "\(file)")
            }
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder.path("dist/Staging/latest")) == "1.4.0-42")
            #expect(
                try String(contentsOfFile: folder.path("dist/index.html"), encoding: .utf8).contains("href=\"Staging/1.4.0-42/index.html\"")
            )
            // The ipa carries the environment and the build number; the input app is untouched.
            let package = try IPAKitBridge.open(release + "/ShoutOut.ipa")
            #expect(package.identifier == "com.example.shoutout.staging" && package.build == "42")
            #expect(try Data(contentsOf: URL(fileURLWithPath: Self.exampleApp + "/Info.plist")) == before)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path("dist")).filter {
                $0.hasPrefix(".adhocbuild-tmp")
            }
            #expect(leftovers == [])
        }
    }

    @Test func aFailingStepLeavesNoRelease() throws {
        try withTemporaryFolder { folder in
            var options = try options(folder)
            options.profile = nil  // the example has no embedded profile, so verification fails
            do {
                _ = try ReleasePipeline(options: options).run()
                Issue.record("released without a profile")
            } catch let failure as Diagnostic where failure.code == .build(.stepFailed) {
                #expect(failure.subject == "Verify")
                #expect(failure.message.contains("has no embedded.mobileprovision"))
            }
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.path("dist")) == [])
            var bad = try self.options(folder, environment: "Nowhere")
            bad.out = folder.path("dist2")
            #expect(throws: Diagnostic.self) { try ReleasePipeline(options: bad).run() }
        }
    }

    /// The app's versions name the release folder, so one holding `/` (which put a whole release
    /// outside DIST, with exit 0) or a control character is refused before anything is published.
    @Test(arguments: ["42/../../../pwned", "4\\2", "42\n"]) func aVersionThatIsNotOneFolderNameIsRefused(build: String) throws {
        try withTemporaryFolder { folder in
            let app = folder.path("Evil.app")
            try FileManager.default.copyItem(atPath: Self.exampleApp, toPath: app)
            var info = try PropertyList(contentsOf: app + "/Info.plist")
            try info.value.setValue(.string(build), at: "CFBundleVersion")
            try info.write(to: app + "/Info.plist")
            var options = try options(folder)
            options.input = app
            do {
                _ = try ReleasePipeline(options: options).run()
                Issue.record("released a build named \(build)")
            } catch let failure as Diagnostic where failure.code == .build(.stepFailed) {
                #expect(failure.subject == "Check the versions name a folder")
                #expect(
                    failure.message.hasPrefix("\(app): the app's CFBundleVersion \(String(reflecting: build)) holds "), "\(failure.message)"
                )
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("dist")).filter { !$0.hasPrefix(".") } == [])
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == [
                    "Evil.app", "dist", "example.mobileprovision"
                ])
        }
    }

    /// Each file the release names is checked before the build is copied and packaged: a mistake in
    /// one fails the "Check the input files" step, names the user's file and leaves no DIST behind.
    @Test func aMissingOrUnreadableInputFileFailsBeforeAnythingIsPackaged() throws {
        try withTemporaryFolder { folder in
            let notPNG = try folder.write("icon.png", "not a png")
            let notProfile = try folder.write("x.mobileprovision", "not a profile")
            try FileManager.default.createDirectory(atPath: folder.path("Empty.app"), withIntermediateDirectories: true)
            let cases: [(String, (inout ReleasePipeline.Options) -> Void, String)] = [
                ("notes", { $0.notes = folder.path("nope.txt") }, folder.path("nope.txt")),
                ("icon", { $0.icon = notPNG }, notPNG + ": is not a readable PNG"),
                ("profile", { $0.profile = notProfile }, notProfile),
                ("app", { $0.input = folder.path("Nothere.app") }, folder.path("Nothere.app") + ": no such file or folder"),
                ("empty app", { $0.input = folder.path("Empty.app") }, folder.path("Empty.app") + ":")
            ]
            for (name, change, expected) in cases {
                var options = try options(folder)
                change(&options)
                var steps: [String] = []
                do {
                    let collected = Locked<[String]>([])
                    var pipeline = ReleasePipeline(options: options)
                    pipeline.onStep = { step, finished in if !finished { collected.withLock { $0.append(step) } } }
                    defer { steps = collected.withLock { $0 } }
                    _ = try pipeline.run()
                    Issue.record("\(name): released")
                } catch let failure as Diagnostic where failure.code == .build(.stepFailed) {
                    #expect(failure.subject == "Check the input files", "\(name): \(failure)")
                    #expect(failure.message.contains(expected), "\(name): \(failure.message)")
                    #expect(!failure.description.contains(".adhocbuild-tmp"), "\(name): \(failure)")
                }
                #expect(!steps.contains("Package") && !steps.contains("Copy the build"), "\(name): \(steps)")
                #expect(!FileManager.default.fileExists(atPath: folder.path("dist")), "\(name): DIST was created")
            }
        }
    }

    /// An .ipa already built for the environment (and given no build number nor signing) is published
    /// byte for byte; for another environment it is unpacked, re-targeted and packaged again.
    @Test func anIPABuiltForTheEnvironmentIsPublishedAsItIsAndAnotherIsRetargeted() throws {
        try withTemporaryFolder { folder in
            let staging = try ReleasePipeline(options: try options(folder)).run()
            var again = try options(folder)
            again.input = staging.ipa
            again.out = folder.path("dist2")
            again.profile = nil
            let republished = try ReleasePipeline(options: again).run()
            #expect(republished.releasePath == staging.releasePath)
            #expect(try Data(contentsOf: URL(fileURLWithPath: republished.ipa)) == Data(contentsOf: URL(fileURLWithPath: staging.ipa)))
            // For another environment the (unsigned) ipa is re-targeted: the app's id and name change.
            var release = again
            release.environment = "Release"
            release.out = folder.path("dist3")
            let retargeted = try ReleasePipeline(options: release).run()
            #expect(retargeted.releasePath.hasPrefix("Release/"))
            #expect(try IPAKitBridge.open(retargeted.ipa).identifier == "com.example.shoutout")
            #expect(try IPAKitBridge.open(staging.ipa).identifier == "com.example.shoutout.staging", "the input is left alone")
        }
    }

    /// The Verify step leaves the entries of an ipa the release packaged to the packager's own check,
    /// but an ipa published as it was given is still inflated entry by entry.
    @Test func aDamagedIPAPublishedAsItIsFailsVerifyNamingTheEntry() throws {
        try withTemporaryFolder { folder in
            let staging = try ReleasePipeline(options: try options(folder)).run()
            let damaged = folder.path("damaged.ipa")
            try FileManager.default.copyItem(atPath: staging.ipa, toPath: damaged)
            let reader = try ZipArchiveReader(path: damaged)
            let entry = try #require(
                reader.entries.filter { !$0.isDirectory && !$0.name.hasSuffix(".plist") && $0.compressedSize > 64 }
                    .max { $0.compressedSize < $1.compressedSize })
            let offset = try #require(reader.dataOffset(of: entry)) + entry.compressedSize / 2
            let handle = try #require(FileHandle(forUpdatingAtPath: damaged))
            try handle.seek(toOffset: UInt64(offset))
            let byte = try #require(try handle.read(upToCount: 1)?.first)
            try handle.seek(toOffset: UInt64(offset))
            try handle.write(contentsOf: [byte ^ 0x5A])
            try handle.close()
            var again = try options(folder)
            again.input = damaged
            again.out = folder.path("dist2")
            again.profile = nil
            let error = #expect(throws: Diagnostic.self) { try ReleasePipeline(options: again).run() }
            #expect(error?.subject == "Verify")
            #expect(error?.message.contains(entry.name) == true, "\(error?.message ?? "")")
            #expect(!FileManager.default.fileExists(atPath: folder.path("dist2/Staging")))
        }
    }

    /// A value read from a CI variable is named by its error, before anything is copied: a bad
    /// BUILD_NUMBER (it was called a bad build number at "Set build number", after the copy), and a
    /// value a `{NAME}` put into the base URL (the error quoted the template alone).
    @Test func aBadValueFromACIVariableIsNamedBeforeAnythingIsCopied() throws {
        try withTemporaryFolder { folder in
            var options = try options(folder)
            options.buildNumber = .fromCI
            options.processEnvironment = ["BUILD_NUMBER": "1207-rc", "GITHUB_RUN_NUMBER": "5"]
            let failure = #expect(throws: Diagnostic.self) { try ReleasePipeline(options: options).run() }
            #expect(failure?.subject == "Check the build number")
            #expect(
                failure?.message
                    == "'1207-rc' (from BUILD_NUMBER) is not a valid build number: it must be one to three period-separated "
                    + "non-negative integers (like 42 or 1.4.2)")
            #expect(!FileManager.default.fileExists(atPath: folder.path("dist")))
            options.buildNumber = .exactly("12.x")
            let given = #expect(throws: Diagnostic.self) { try ReleasePipeline(options: options).run() }
            #expect(given?.subject == "Check the build number")
            #expect(!FileManager.default.fileExists(atPath: folder.path("dist")))
            options.buildNumber = .unchanged
            options.baseURL = "https://{HOST}/apps/"
            options.processEnvironment = ["HOST": "ci example.com"]
            options.variablePolicy = ProcessVariablePolicy(allowed: ["HOST"])
            let url = #expect(throws: Diagnostic.self) { try ReleasePipeline(options: options).run() }
            #expect(url?.subject == "Check the base URL")
            #expect(
                url?.message.hasSuffix("({HOST} is HOST from the process environment, 'ci example.com')") == true,
                "\(String(describing: url))")
            #expect(!FileManager.default.fileExists(atPath: folder.path("dist")))
        }
    }

    @Test func aBaseURLErrorQuotesTheTemplateAsWritten() throws {
        try withTemporaryFolder { folder in
            var options = try options(folder)
            options.baseURL = "http://b.example.com/{env}/{version}-{build}/"
            let failure = #expect(throws: Diagnostic.self) { try ReleasePipeline(options: options).run() }
            #expect(failure?.message.contains("base URL 'http://b.example.com/{env}/{version}-{build}/' uses http") == true, "\(failure!)")
        }
    }

    @Test func baseURLTemplatesFillInTheReleaseAndVariables() throws {
        try withTemporaryFolder { folder in
            var options = try options(folder, environment: "QA")
            options.baseURL = "https://{HOST}/apps/{env}/{version}+{build}/"
            options.processEnvironment = ["HOST": "ci.example.com"]
            options.variablePolicy = ProcessVariablePolicy(allowed: ["HOST"])
            let result = try ReleasePipeline(options: options).run()
            // The template's own '+' is the user's and stays; the values put into it are encoded.
            #expect(result.pageURL == "https://ci.example.com/apps/QA/1.4.0+41/index.html")
            options.baseURL = "https://{MISSING}/"
            #expect(throws: Diagnostic.self) { try ReleasePipeline(options: options).run() }
        }
    }

    /// Issue 31: placeholders are filled in one pass; what a value holds is never read as a placeholder,
    /// so BRANCH='{BRANCH}' (which looped forever) or a value naming another variable is text, which a
    /// URL cannot hold: one error at once, quoting the template as given.
    @Test func aBaseURLPlaceholderIsFilledOnceWhateverItsValueHolds() throws {
        try withTemporaryFolder { folder in
            var options = try options(folder, environment: "QA")
            options.processEnvironment = ["HOST": "ci.example.com", "BRANCH": "{BRANCH}", "OTHER": "{HOST}"]
            options.variablePolicy = ProcessVariablePolicy(allowed: ["HOST", "BRANCH", "OTHER"])
            for template in ["https://{HOST}/{BRANCH}/{env}/", "https://{HOST}/{OTHER}/{build}/"] {
                options.baseURL = template
                let error = #expect(throws: (any Error).self) {
                    try ReleasePipeline(options: options).releaseBaseURL(environment: "QA", version: "1.4.0", build: "41")
                }
                #expect("\(error.map { "\($0)" } ?? "")".contains("base URL '\(template)' contains '{'"), "\(String(describing: error))")
            }
            options.processEnvironment = ["HOST": "ci.example.com", "BRANCH": "main"]
            options.baseURL = "https://{HOST}/{BRANCH}/{env}/"
            let url = try ReleasePipeline(options: options).releaseBaseURL(environment: "QA", version: "1.4.0", build: "41")
            #expect(url == "https://ci.example.com/main/QA/")
        }
    }

    /// A base URL (it may come from the environment's Distribution) reads the process environment as
    /// `$(NAME)` does: a secret never, another variable only when allowed; nothing is published.
    @Test func baseURLTemplatesNeverReadASecretNorAVariableThatIsNotAllowed() throws {
        try withTemporaryFolder { folder in
            var options = try options(folder)
            options.processEnvironment = ["ADHOCBUILD_SIGN_PASSWORD": "hunter2-p12", "HOST": "ci.example.com"]
            options.variablePolicy = ProcessVariablePolicy(allowed: ["ADHOCBUILD_SIGN_PASSWORD"])
            options.baseURL = "https://evil.example/{ADHOCBUILD_SIGN_PASSWORD}/"
            let secret = #expect(throws: Diagnostic.self) { try ReleasePipeline(options: options).run() }
            #expect(
                secret?.message
                    == "the base URL template's {ADHOCBUILD_SIGN_PASSWORD} is never expanded from the process environment: "
                    + "adhocbuild reads it for signing, and --allow-env cannot allow it")
            options.baseURL = "https://{HOST}/"
            let notAllowed = #expect(throws: Diagnostic.self) { try ReleasePipeline(options: options).run() }
            #expect(
                notAllowed?.message
                    == "the base URL template's {HOST} is not allowed from the process environment (allow it with --allow-env HOST)")
            #expect(!FileManager.default.fileExists(atPath: folder.path("dist/index.html")))
        }
    }

    /// TeamCity's `123:id` locators, escapes already in the base and sub-delimiters stay as the user
    /// wrote them; only what the tool appends (the release folder, the ipa's name) is encoded; the
    /// manifest holds the URLs XML-escaped and the page HTML-escaped.
    @Test func theBaseURLIsKeptAsGivenAndOnlyWhatIsAppendedIsEncoded() throws {
        try withTemporaryFolder { folder in
            var options = try options(folder)
            let app = folder.path("Shout:Out+@~\u{E9} %20.app")
            try FileManager.default.copyItem(atPath: Self.exampleApp, toPath: app)
            options.input = app
            options.baseURL = "https://ci.example.com/repository/download/App_Staging/123:id/release%20candidate/~me+you@x&y/caf\u{E9}"
            let result = try ReleasePipeline(options: options).run()
            let base = "https://ci.example.com/repository/download/App_Staging/123:id/release%20candidate/~me+you@x&y/caf%C3%A9/"
            #expect(result.pageURL == base + "Staging/1.4.0-41/index.html")
            let ipaURL = base + "Staging/1.4.0-41/Shout%3AOut%2B%40~%C3%A9%20%2520.ipa"
            let manifestBytes = try Data(contentsOf: URL(fileURLWithPath: result.releaseFolder + "/manifest.plist"))
            #expect(String(decoding: manifestBytes, as: UTF8.self).contains(ipaURL.replacingOccurrences(of: "&", with: "&amp;")))
            let manifest = try PropertyList(data: manifestBytes).value
            let item = manifest.dictionaryValue?["items"]?.arrayValue?.first?.dictionaryValue
            let assets = item?["assets"]?.arrayValue ?? []
            let assetURLs: [String] = assets.compactMap { $0.dictionaryValue?["url"]?.stringValue }
            #expect(assetURLs.contains(ipaURL), "\(assetURLs)")
            let page = try String(contentsOfFile: result.releaseFolder + "/index.html", encoding: .utf8)
            #expect(page.contains("href=\"\(result.manifestURL.replacingOccurrences(of: "&", with: "&amp;"))\""))
            #expect(!page.contains("x&y/"), "an unescaped '&' in the page")
            // The manifest's URL as one query value, encoded by Foundation as the oracle.
            let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
            let encoded = try #require(result.manifestURL.addingPercentEncoding(withAllowedCharacters: unreserved))
            #expect(result.installURL == "itms-services://?action=download-manifest&url=" + encoded)
            #expect(page.contains("href=\"itms-services://?action=download-manifest&amp;url=\(encoded)\""))
        }
    }

    /// The release is assembled in a temporary folder inside DIST; its warnings and failures name the
    /// user's input and the published release instead.
    @Test func warningsAndFailuresNameTheUsersPathsNotTheTemporaryFolder() throws {
        try withTemporaryFolder { folder in
            var options = try options(folder)
            let app = folder.path("in/Signed.app")
            try FileManager.default.createDirectory(atPath: folder.path("in"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Self.exampleApp, toPath: app)
            try folder.create("in/Signed.app/_CodeSignature/CodeResources", Data("<plist/>".utf8))
            options.input = app + "/"
            let result = try ReleasePipeline(options: options).run()
            // Its executable carries no signature: reported as unsigned, not refused.
            #expect(result.signature == "unsigned")
            #expect(
                result.warnings.contains { $0.code == .build(.signature) && $0.report.hasPrefix("Signed.app is unsigned;") },
                "\(result.warnings)")
            #expect(!result.warnings.contains { $0.report.contains(".adhocbuild-tmp") }, "\(result.warnings)")

            // A file the packager cannot read inside the copied build is named under the input.
            try folder.create("in/Signed.app/Unreadable.strings", Data("x".utf8))
            let broken = app + "/Dangling"
            try FileManager.default.createSymbolicLink(atPath: broken, withDestinationPath: "/nonexistent/outside")
            options.out = folder.path("dist2")
            do {
                _ = try ReleasePipeline(options: options).run()
                Issue.record("released an app with a link pointing outside it")
            } catch let failure as Diagnostic where failure.code == .build(.stepFailed) {
                #expect(!failure.description.contains(".adhocbuild-tmp"), "\(failure)")
                #expect(failure.description.contains(app), "\(failure)")
            }
        }
    }

    @Test func twoReleasesAtOnceBothLandAndTheIndexListsBoth() throws {
        try withTemporaryFolder { folder in
            let first = try options(folder, environment: "Staging")
            var second = first
            second.environment = "QA"
            let group = DispatchGroup()
            let failures = Failures()
            for options in [first, second] {
                group.enter()
                DispatchQueue.global().async {
                    defer { group.leave() }
                    do { _ = try ReleasePipeline(options: options).run() } catch { failures.add("\(error)") }
                }
            }
            group.wait()
            #expect(failures.all == [])
            let index = try String(contentsOfFile: folder.path("dist/index.html"), encoding: .utf8)
            #expect(index.contains("Staging/1.4.0-41/index.html") && index.contains("QA/1.4.0-41/index.html"))
        }
    }

    @Test func teamCityMessagesAreEscapedAsTeamCitySpecifies() {
        #expect(TeamCityMessage.escape("it's [done]|\n\r ü") == "it|'s |[done|]|||n|r |0x00fc")
        #expect(
            TeamCityMessage.attributes("setParameter", [("name", "a"), ("value", "x'y")])
                == "##teamcity[setParameter name='a' value='x|'y']")
        #expect(CIServer.detect(in: ["TEAMCITY_VERSION": "2024.1"]) == .teamcity)
        #expect(CIServer.detect(in: ["GITHUB_ACTIONS": "true"]) == .github)
        #expect(CIServer.detect(in: ["GITLAB_CI": "true"]) == .gitlab)
        #expect(CIServer.detect(in: ["JENKINS_URL": "https://ci/"]) == .jenkins)
        #expect(CIServer.detect(in: [:]) == .none)
    }

    @Test func githubAndGitLabGetTheirOutputFiles() throws {
        try withTemporaryFolder { folder in
            let result = ReleasePipeline.Result(
                environment: "Staging", version: "1.4.0", build: "42", releaseFolder: "dist/Staging/1.4.0-42",
                releasePath: "Staging/1.4.0-42", ipa: "dist/Staging/1.4.0-42/ShoutOut.ipa",
                pageURL: "https://b.example/Staging/1.4.0-42/", manifestURL: "https://b.example/m.plist",
                installURL: "itms-services://?action=download-manifest&url=x", warnings: [])
            let github = CIReporter(
                server: .github, environment: ["GITHUB_OUTPUT": folder.path("out"), "GITHUB_STEP_SUMMARY": folder.path("summary")],
                print: { _ in })
            try github.succeeded(result, out: "dist")
            let outputs = try String(contentsOfFile: folder.path("out"), encoding: .utf8)
            #expect(
                outputs.contains("page-url=https://b.example/Staging/1.4.0-42/\n")
                    && outputs.contains("ipa-path=dist/Staging/1.4.0-42/ShoutOut.ipa\n"))
            #expect(try String(contentsOfFile: folder.path("summary"), encoding: .utf8).hasPrefix("### Staging 1.4.0 (42)"))
            let gitlab = CIReporter(server: .gitlab, environment: [:], reportFile: folder.path("adhocbuild.env"), print: { _ in })
            try gitlab.succeeded(result, out: "dist")
            #expect(try String(contentsOfFile: folder.path("adhocbuild.env"), encoding: .utf8).contains("ADHOCBUILD_VERSION=1.4.0\n"))
            let lines = LineCollector()
            let teamcity = CIReporter(server: .teamcity, environment: [:], print: { lines.add($0) })
            try teamcity.succeeded(result, out: "dist")
            #expect(lines.all.first == "##teamcity[buildNumber '1.4.0 (42)']")
            #expect(lines.all.contains("##teamcity[publishArtifacts 'dist => dist']"))
        }
    }

    /// The signature check's result reaches the CI server: a TeamCity WARNING message (a plain message
    /// when the signature holds), a GitHub warning annotation, and SIGNATURE among the values.
    @Test func theSignatureCheckIsReportedToCI() throws {
        try withTemporaryFolder { folder in
            var result = ReleasePipeline.Result(
                environment: "Staging", version: "1.4.0", build: "42", releaseFolder: "dist/Staging/1.4.0-42",
                releasePath: "Staging/1.4.0-42", ipa: "dist/Staging/1.4.0-42/ShoutOut.ipa",
                pageURL: "https://b.example/Staging/1.4.0-42/", manifestURL: "https://b.example/m.plist",
                installURL: "itms-services://?action=download-manifest&url=x", warnings: [], signature: "unsigned",
                signatureSummary: "ShoutOut.app is unsigned; iOS will not install it until it is signed")
            let lines = LineCollector()
            try CIReporter(server: .teamcity, environment: [:], print: { lines.add($0) }).succeeded(result, out: "dist")
            #expect(
                lines.all.contains(
                    "##teamcity[message text='Signature: ShoutOut.app is unsigned; iOS will not install it until it is signed' status='WARNING']"
                ))
            #expect(lines.all.contains("##teamcity[setParameter name='adhocbuild.signature' value='unsigned']"))
            let github = LineCollector()
            try CIReporter(server: .github, environment: ["GITHUB_OUTPUT": folder.path("out")], print: { github.add($0) })
                .succeeded(result, out: "dist")
            #expect(github.all == ["::warning title=Signature::ShoutOut.app is unsigned; iOS will not install it until it is signed"])
            #expect(try String(contentsOfFile: folder.path("out"), encoding: .utf8).contains("signature=unsigned\n"))
            result.signature = "valid"
            result.signatureSummary = "the signature of Test.app holds"
            let valid = LineCollector()
            try CIReporter(server: .teamcity, environment: [:], print: { valid.add($0) }).succeeded(result, out: "dist")
            #expect(valid.all.contains("##teamcity[message text='Signature: the signature of Test.app holds']"))
        }
    }
}

final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ item: String) { lock.lock(); items.append(item); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return items }
}

typealias LineCollector = Failures

/// Reads an ipa's identity through the library the release used.
enum IPAKitBridge {
    static func open(_ path: String) throws -> (identifier: String?, build: String?) {
        let info = try PropertyList(data: try unzip(path)).value
        return (info["CFBundleIdentifier"]?.stringValue, info["CFBundleVersion"]?.stringValue)
    }

    static func unzip(_ path: String) throws -> Data {
        let result = try ProcessResult.run(try #require(ProcessResult.which("unzip")), ["-p", path, "Payload/ShoutOut.app/Info.plist"])
        return result.stdout
    }
}

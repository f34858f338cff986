import AdhocBuildKit
import CodeSign
import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// How the `--sign-…` flags, `adhocbuild.plist` and the `ADHOCBUILD_SIGN_…` variables become one
/// signing request, and every mistake in them.
@Suite struct SigningRequestTests {
    /// A folder with an identity, two profiles, an entitlements file and a password file, and an
    /// `adhocbuild.plist` holding `projectKeys` (XML inside the dictionary).
    private func files(_ folder: TemporaryFolder, projectKeys: String = "") throws -> ProjectFile? {
        for name in ["id.p12", "App.mobileprovision", "Share.mobileprovision", "Watch.mobileprovision", "app.entitlements", "pw.txt"] {
            _ = try folder.write(name, "x")
        }
        _ = try folder.write("adhocbuild.plist", "<plist version=\"1.0\"><dict>\(projectKeys)</dict></plist>")
        return try ProjectFile.load(folder.path("adhocbuild.plist"))
    }

    @Test func flagsGiveTheIdentityPasswordSourceAndAProfilePerBundleId() throws {
        try withTemporaryFolder { folder in
            let project = try files(folder)
            let flags = SigningRequest.Flags(
                identity: folder.path("id.p12"), passwordVariable: "P12_PASSWORD",
                profiles: [folder.path("App.mobileprovision"), "com.example.app.share=" + folder.path("Share.mobileprovision")],
                entitlements: folder.path("app.entitlements"))
            let (request, _) = try SigningRequest.resolve(flags, projectFile: project, processEnvironment: ["P12_PASSWORD": "secret"])
            #expect(
                request
                    == SigningRequest(
                        identity: folder.path("id.p12"), password: .environment("P12_PASSWORD"),
                        appProfile: folder.path("App.mobileprovision"),
                        profiles: ["com.example.app.share": folder.path("Share.mobileprovision")],
                        entitlements: folder.path("app.entitlements")))
            #expect(request?.profile(for: "com.example.app.share") == folder.path("Share.mobileprovision"))
            #expect(request?.profile(for: "com.example.app.watchkitapp") == folder.path("App.mobileprovision"))
        }
    }

    @Test func withoutAnIdentityAnywhereNothingIsSignedEvenWithACISecretPasswordSet() throws {
        let (request, settings) = try SigningRequest.resolve(
            SigningRequest.Flags(), projectFile: nil, processEnvironment: ["ADHOCBUILD_SIGN_PASSWORD": "secret"])
        #expect(request == nil)
        #expect(settings.map(\.name) == ["SignIdentity"])
    }

    @Test func theProjectFileFillsWhatTheFlagsLeaveAndProfilesMergeByBundleId() throws {
        try withTemporaryFolder { folder in
            let project = try files(
                folder,
                projectKeys: """
                    <key>SignIdentity</key><string>id.p12</string>
                    <key>SignPasswordFile</key><string>pw.txt</string>
                    <key>SignProfile</key><string>App.mobileprovision</string>
                    <key>SignProfiles</key><dict>
                    <key>com.example.app.share</key><string>Share.mobileprovision</string>
                    <key>com.example.app.watchkitapp</key><string>Watch.mobileprovision</string>
                    </dict>
                    """)
            let flags = SigningRequest.Flags(profiles: ["com.example.app.share=" + folder.path("Watch.mobileprovision")])
            let (request, settings) = try SigningRequest.resolve(flags, projectFile: project, processEnvironment: [:])
            #expect(request?.identity == folder.path("id.p12"))
            #expect(request?.password == .file(folder.path("pw.txt")))
            #expect(request?.appProfile == folder.path("App.mobileprovision"))
            #expect(
                request?.profiles == [
                    "com.example.app.share": folder.path("Watch.mobileprovision"),
                    "com.example.app.watchkitapp": folder.path("Watch.mobileprovision")
                ])
            let origins = Dictionary(uniqueKeysWithValues: settings.map { ($0.name, $0.originText) })
            #expect(origins["SignProfile[com.example.app.share]"] == "from --sign-profile com.example.app.share=")
            #expect(
                origins["SignProfile[com.example.app.watchkitapp]"]
                    == "from \(folder.path("adhocbuild.plist")) at 'SignProfiles:com.example.app.watchkitapp'")
        }
    }

    @Test func aCISecretSuppliesTheIdentityAndThePasswordByVariableName() throws {
        try withTemporaryFolder { folder in
            _ = try files(folder)
            let (request, settings) = try SigningRequest.resolve(
                SigningRequest.Flags(), projectFile: nil,
                processEnvironment: ["ADHOCBUILD_SIGN_IDENTITY": folder.path("id.p12"), "ADHOCBUILD_SIGN_PASSWORD": "hunter2"])
            #expect(request?.identity == folder.path("id.p12"))
            #expect(request?.password == .environment("ADHOCBUILD_SIGN_PASSWORD"))
            let lines = ReleaseSetting.explanation(settings)
            #expect(lines.contains { $0.contains("SignPassword") && $0.contains("environment variable ADHOCBUILD_SIGN_PASSWORD") })
            #expect(!lines.joined().contains("hunter2"))
        }
    }

    @Test func aFlagBeatsTheProjectFileWhichBeatsTheVariables() throws {
        try withTemporaryFolder { folder in
            let project = try files(folder, projectKeys: "<key>SignPasswordEnv</key><string>FROM_PROJECT</string>")
            let environment = [
                "ADHOCBUILD_SIGN_IDENTITY": folder.path("id.p12"), "FROM_PROJECT": "a",
                "ADHOCBUILD_SIGN_PASSWORD_FILE": folder.path("pw.txt")
            ]
            let fromProject = try SigningRequest.resolve(SigningRequest.Flags(), projectFile: project, processEnvironment: environment)
            #expect(fromProject.request?.password == .environment("FROM_PROJECT"))
            let fromFlag = try SigningRequest.resolve(
                SigningRequest.Flags(passwordFile: folder.path("pw.txt")), projectFile: project, processEnvironment: environment)
            #expect(fromFlag.request?.password == .file(folder.path("pw.txt")))
            let fromVariables = try SigningRequest.resolve(SigningRequest.Flags(), projectFile: nil, processEnvironment: environment)
            #expect(fromVariables.request?.password == .file(folder.path("pw.txt")))
        }
    }

    @Test func anIdentityWithoutAPasswordSourceIsAMistake() throws {
        try withTemporaryFolder { folder in
            _ = try files(folder)
            let error = #expect(throws: SigningRequest.Mistake.self) {
                try SigningRequest.resolve(SigningRequest.Flags(identity: folder.path("id.p12")), projectFile: nil, processEnvironment: [:])
            }
            #expect(error?.description.hasPrefix("the signing identity needs a password source: --sign-password-env VAR") == true)
        }
    }

    @Test func bothPasswordFlagsAreAMistake() throws {
        try withTemporaryFolder { folder in
            _ = try files(folder)
            let flags = SigningRequest.Flags(identity: folder.path("id.p12"), passwordVariable: "P", passwordFile: folder.path("pw.txt"))
            #expect(throws: SigningRequest.Mistake(description: "give --sign-password-env VAR or --sign-password-file FILE, not both")) {
                try SigningRequest.resolve(flags, projectFile: nil, processEnvironment: ["P": "x"])
            }
        }
    }

    @Test func aBundleIdGivenTwiceIsAMistake() throws {
        let flags = SigningRequest.Flags(identity: "id.p12", passwordVariable: "P", profiles: ["com.a.share=A", "com.a.share=B"])
        #expect(throws: SigningRequest.Mistake(description: "--sign-profile com.a.share= is given twice; give one profile per bundle id")) {
            try SigningRequest.resolve(flags, projectFile: nil, processEnvironment: ["P": "x"])
        }
    }

    @Test func signingFlagsWithoutAnIdentityAreAMistake() throws {
        #expect(throws: SigningRequest.Mistake.self) {
            try SigningRequest.resolve(SigningRequest.Flags(passwordVariable: "P"), projectFile: nil, processEnvironment: ["P": "x"])
        }
    }

    @Test func missingFilesAndAnUnsetPasswordVariableAreReportedTogetherNamingEachFile() throws {
        try withTemporaryFolder { folder in
            _ = try files(folder)
            let flags = SigningRequest.Flags(
                identity: folder.path("id.p12"), passwordVariable: "UNSET",
                profiles: ["com.example.app.share=" + folder.path("Missing.mobileprovision")])
            let error = #expect(throws: Diagnostics.self) {
                try SigningRequest.resolve(flags, projectFile: nil, processEnvironment: [:])
            }
            #expect(
                error?.items == [
                    Diagnostic.build("environment variable UNSET is not set; it should hold the signing identity's password"),
                    Diagnostic.build(
                        "no such provisioning profile (from --sign-profile com.example.app.share=)",
                        file: folder.path("Missing.mobileprovision"))
                ])
        }
    }

    /// A release of `A.app` re-signed with the files of ``files(_:projectKeys:)``: `id.p12` and `App.mobileprovision`.
    private func signingRelease(_ folder: TemporaryFolder) throws -> ReleaseRequest {
        _ = try files(folder)
        var request = ReleaseRequest(environment: "Staging")
        request.app = "A.app"
        request.baseURL = "https://b.example/"
        request.signing = SigningRequest.Flags(identity: folder.path("id.p12"), profiles: [folder.path("App.mobileprovision")])
        return request
    }

    /// `--explain` says the signing profile is embedded when the app is re-signed with one: it said
    /// `Profile: the app's own embedded.mobileprovision`, and a `--profile` given too is not used.
    @Test func releaseExplainsThatTheSigningProfileIsEmbedded() throws {
        try withTemporaryFolder { folder in
            var request = try signingRelease(folder)
            let environment = ["ADHOCBUILD_SIGN_PASSWORD": "hunter2"]
            func profileLine() throws -> String {
                let lines = ReleaseSetting.explanation(try request.plan(processEnvironment: environment).settings)
                return try #require(lines.first { $0.hasPrefix("  Profile ") })
            }
            let embedded =
                "SignProfile \(folder.path("App.mobileprovision")) (from --sign-profile) is embedded, as the app is re-signed with it"
            #expect(try profileLine().hasSuffix("not set: " + embedded))
            request.profile = folder.path("Other.mobileprovision")
            #expect(try profileLine().hasSuffix("from --profile; not used: " + embedded))
            // Without re-signing, the app's own profile is embedded, as before.
            request.signing = SigningRequest.Flags()
            request.profile = nil
            #expect(try profileLine().hasSuffix("not set: the app's own embedded.mobileprovision"))
        }
    }

    @Test func releaseExplainsWhereEachSigningSettingCameFromWithoutThePassword() throws {
        try withTemporaryFolder { folder in
            let request = try signingRelease(folder)
            let plan = try request.plan(processEnvironment: ["ADHOCBUILD_SIGN_PASSWORD": "hunter2"])
            #expect(plan.options.signing?.identity == folder.path("id.p12"))
            let lines = ReleaseSetting.explanation(plan.settings).filter { $0.contains("  Sign") }
            #expect(lines.count == 4)
            #expect(lines[0].contains(folder.path("id.p12")) && lines[0].hasSuffix("from --sign-identity"))
            #expect(
                lines[1].contains("environment variable ADHOCBUILD_SIGN_PASSWORD") && lines[1].hasSuffix("from $ADHOCBUILD_SIGN_PASSWORD"))
            #expect(lines[2].hasSuffix("from --sign-profile"))
            #expect(lines[3].hasSuffix("not set: each profile's entitlements"))
            #expect(!lines.joined().contains("hunter2"))
        }
    }

    @Test func releaseReportsASigningMistakeAsAnIncompleteRequest() throws {
        var request = ReleaseRequest(environment: "Staging")
        request.app = "A.app"
        request.baseURL = "https://b.example/"
        request.signing = SigningRequest.Flags(identity: "id.p12", passwordVariable: "P", passwordFile: "pw")
        #expect(throws: ReleaseRequest.Incomplete.self) { try request.plan(processEnvironment: [:]) }
    }
}

/// The signing keys of `adhocbuild.plist`.
@Suite struct ProjectFileSigningKeysTests {
    @Test func signProfilesMustBeADictionaryOfPathsTakenFromTheFilesFolder() throws {
        try withTemporaryFolder { folder in
            let path = try folder.write(
                "adhocbuild.plist",
                "<plist><dict><key>SignProfiles</key><dict><key>com.a.share</key><string>p/Share.mobileprovision</string></dict>"
                    + "<key>SignPasswordEnv</key><string>P12_PASSWORD</string></dict></plist>")
            let project = try #require(try ProjectFile.load(path))
            #expect(project.dictionaries["SignProfiles"] == ["com.a.share": folder.path("p/Share.mobileprovision")])
            #expect(project.values["SignPasswordEnv"] == "P12_PASSWORD")
            _ = try folder.write("adhocbuild.plist", "<plist><dict><key>SignProfiles</key><string>x</string></dict></plist>")
            #expect(throws: Diagnostic.build("must be a dictionary, not a string", file: path, keyPath: "SignProfiles")) {
                try ProjectFile.load(path)
            }
            _ = try folder.write(
                "adhocbuild.plist", "<plist><dict><key>SignProfiles</key><dict><key>com.a</key><true/></dict></dict></plist>")
            #expect(throws: Diagnostic.build("must be a string, not a bool", file: path, keyPath: "SignProfiles:com.a")) {
                try ProjectFile.load(path)
            }
            _ = try folder.write("adhocbuild.plist", "<plist><dict><key>SignProfile</key><dict/></dict></plist>")
            #expect(throws: Diagnostic.build("must be a string, not a dict", file: path, keyPath: "SignProfile")) {
                try ProjectFile.load(path)
            }
            _ = try folder.write("adhocbuild.plist", "<plist><dict><key>SignProfles</key><dict/></dict></plist>")
            #expect(throws: Diagnostic.build("unknown key 'SignProfles'; did you mean 'SignProfiles'?", file: path, keyPath: "SignProfles"))
            {
                try ProjectFile.load(path)
            }
        }
    }
}

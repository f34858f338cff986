import Foundation
import TestSupport
import Testing

/// The `ADHOCBUILD_MAX_*` variables: a user with a legitimately huge file can raise a limit, and a
/// limit that is hit says how to raise it.
@Suite struct LimitSettingsCLITests {
    /// An XML plist with `depth` nested arrays.
    func nestedPlist(depth: Int) -> Data {
        Data(
            ("<plist>" + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
                + "</plist>").utf8)
    }

    @Test func aPlistDeeperThanTheDefaultFailsUntilTheDepthLimitIsRaised() throws {
        try withTemporaryFolder { folder in
            let deep = try folder.create("Deep.plist", nestedPlist(depth: 600))
            let refused = try AdhocBuildBinary.run(["plist", "print", deep])
            #expect(refused.status == 1)
            #expect(
                refused.stderrText.contains(
                    "nesting deeper than 512 levels (limits can be raised: see Environment in 'adhocbuild --help')"),
                "\(refused.stderrText)")
            let raised = try AdhocBuildBinary.run(["plist", "print", deep], extraEnvironment: ["ADHOCBUILD_MAX_PLIST_DEPTH": "1000"])
            #expect(raised.status == 0, "\(raised.stderrText)")
        }
    }

    @Test func theSizeLimitTakesASuffixAndNamesTheFile() throws {
        try withTemporaryFolder { folder in
            let plist = try folder.create(
                "Big.plist",
                Data(
                    ("<plist><string>" + String(repeating: "x", count: 3000)
                        + "</string></plist>").utf8))
            let refused = try AdhocBuildBinary.run(["plist", "print", plist], extraEnvironment: ["ADHOCBUILD_MAX_PLIST_SIZE": "2K"])
            #expect(refused.status == 1)
            #expect(
                refused.stderrText.hasPrefix("error: \(plist): the file is 3032 bytes, more than the limit of 2048"),
                "\(refused.stderrText)")
            let allowed = try AdhocBuildBinary.run(["plist", "print", plist], extraEnvironment: ["ADHOCBUILD_MAX_PLIST_SIZE": "4K"])
            #expect(allowed.status == 0, "\(allowed.stderrText)")
        }
    }

    /// A limit hit under `env` or `version` says how to raise it too: the plist error comes through
    /// those commands as it is, not re-wrapped into a string without its hint.
    @Test func aLimitHitThroughEnvAndVersionCommandsKeepsItsHint() throws {
        try withTemporaryFolder { folder in
            let deep = nestedPlist(depth: 600)
            try folder.create("environments/Base.plist", deep)
            let env = try AdhocBuildBinary.run(["env", "list", "--environments", folder.path("environments")])
            #expect(env.status == 1)
            #expect(
                env.stderrText.contains("nesting deeper than 512 levels (limits can be raised: see Environment in 'adhocbuild --help')"),
                "\(env.stderrText)")
            try folder.create("A.app/Info.plist", deep)
            let version = try AdhocBuildBinary.run(["version", "show", folder.path("A.app")])
            #expect(version.status == 1)
            #expect(
                version.stderrText.contains(
                    "nesting deeper than 512 levels (limits can be raised: see Environment in 'adhocbuild --help')"),
                "\(version.stderrText)")
        }
    }

    /// A lowered limit reaches the reads that once took the process-wide defaults: the environment
    /// plists `env` reads and the Info.plist `version` reads are refused at the lowered depth.
    @Test func aLoweredDepthLimitReachesEnvAndVersionReads() throws {
        try withTemporaryFolder { folder in
            let nested = nestedPlist(depth: 20)
            let lowered = ["ADHOCBUILD_MAX_PLIST_DEPTH": "10"]
            try folder.create("environments/Base.plist", nested)
            let env = try AdhocBuildBinary.run(["env", "list", "--environments", folder.path("environments")], extraEnvironment: lowered)
            #expect(env.status == 1)
            #expect(env.stderrText.contains("nesting deeper than 10 levels"), "\(env.stderrText)")
            try folder.create("A.app/Info.plist", nested)
            let version = try AdhocBuildBinary.run(["version", "show", folder.path("A.app")], extraEnvironment: lowered)
            #expect(version.status == 1)
            #expect(version.stderrText.contains("nesting deeper than 10 levels"), "\(version.stderrText)")
            // The project file is read within the same limits (an old-style plist, parsed by its own reader).
            let deepProject = String(repeating: "{ k = ", count: 20) + "x" + String(repeating: "; }", count: 20)
            try folder.create("P.xcodeproj/project.pbxproj", Data("// !$*UTF8*$!\n{ objects = \(deepProject); rootObject = R; }\n".utf8))
            let project = try AdhocBuildBinary.run(
                ["version", "show", "--project", folder.path("P.xcodeproj")], extraEnvironment: lowered)
            #expect(project.status == 1)
            #expect(project.stderrText.contains("nesting deeper than 10 levels"), "\(project.stderrText)")
        }
    }

    @Test func theIPAEntryLimitAppliesToInspect() throws {
        try withTemporaryFolder { folder in
            try folder.create("A.app/Info.plist", Data("<plist><dict><key>CFBundleExecutable</key><string>A</string></dict></plist>".utf8))
            try folder.create("A.app/A", Data(repeating: 0x41, count: 100))
            let packaged = try AdhocBuildBinary.run(["package", folder.path("A.app"), "-o", folder.path("A.ipa"), "-q"])
            #expect(packaged.status == 0, "\(packaged.stderrText)")
            let refused = try AdhocBuildBinary.run(["inspect", folder.path("A.ipa")], extraEnvironment: ["ADHOCBUILD_MAX_IPA_ENTRIES": "2"])
            #expect(refused.status == 1)
            #expect(refused.stderrText.contains("more than the limit of 2 (limits can be raised"), "\(refused.stderrText)")
            let allowed = try AdhocBuildBinary.run(
                ["inspect", folder.path("A.ipa")], extraEnvironment: ["ADHOCBUILD_MAX_IPA_ENTRIES": "10"])
            #expect(allowed.status == 0, "\(allowed.stderrText)")
        }
    }

    @Test(arguments: ["x", "0", "-5", "12Q", "99999999999999999999"])
    func aLimitThatIsNotAPositiveNumberIsAUsageError(value: String) throws {
        let result = try AdhocBuildBinary.run(["--version"], extraEnvironment: ["ADHOCBUILD_MAX_PLIST_VALUES": value])
        #expect(result.status == 2)
        #expect(result.stderrText.hasPrefix("error: ADHOCBUILD_MAX_PLIST_VALUES: '\(value)' is not a positive whole number\n"))
        #expect(result.stdoutText.isEmpty)
    }
}

import Foundation
import TestSupport
import Testing

/// Issue 31, messages: every error is one line naming the file the user gave (and the place in it),
/// never the tool's temporary folder, a path that does not exist, a Foundation dump or libxml2's own lines.
@Suite struct MessagesCLITests {
    static var example: String { Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut/ShoutOut.app").path }

    static func exampleApp(_ folder: TemporaryFolder, _ name: String = "ShoutOut.app") throws -> String {
        try FileManager.default.copyItem(atPath: example, toPath: folder.path(name))
        return folder.path(name)
    }

    /// `bad.ipa` in `folder`: the example app (copied there as ShoutOut.app) packaged, with the plist
    /// entry `plist` not well-formed (`1:29: … tag mismatch`).
    static func badIpa(_ folder: TemporaryFolder, plist: String) throws {
        let packaged = try AdhocBuildBinary.run(["package", "ShoutOut.app", "-o", "in.ipa"], in: folder.url.path)
        try #require(packaged.status == 0, "\(packaged.stderrText)")
        let script = """
            import sys, zipfile
            with zipfile.ZipFile('in.ipa') as z, zipfile.ZipFile('bad.ipa', 'w', zipfile.ZIP_DEFLATED) as out:
                for item in z.infolist():
                    data = z.read(item)
                    if item.filename == sys.argv[1]:
                        data = b'<plist><dict><key>a</string></dict></plist>'
                    out.writestr(item, data)
            """
        let rewritten = try ProcessResult.run("/usr/bin/python3", ["-c", script, plist], in: folder.url.path)
        try #require(rewritten.status == 0, "\(rewritten.stderrText)")
    }

    /// A relative app's damaged Assets.car was named `/A.app/Assets.car`, a path that does not exist.
    @Test func aDamagedCatalogInAnAppFolderIsNamedByItsOwnPath() throws {
        try withTemporaryFolder { folder in
            let app = try Self.exampleApp(folder, "A.app")
            try Data("garbage".utf8).write(to: URL(fileURLWithPath: app + "/Assets.car"))
            let result = try AdhocBuildBinary.run(["icon", "list", "A.app"], in: folder.url.path)
            #expect(result.stderrText.hasPrefix("error: A.app/Assets.car: BOM header:"), "\(result.stderrText)")
        }
    }

    /// A bad Info.plist in an app folder was `A.app: A.app/Info.plist: …`; it is the file's path.
    @Test func aBadInfoPlistInAnAppFolderIsNamedByItsPath() throws {
        try withTemporaryFolder { folder in
            let app = try Self.exampleApp(folder, "A.app")
            try Data("<plist><dict><key>a</string></dict></plist>".utf8).write(to: URL(fileURLWithPath: app + "/Info.plist"))
            let result = try AdhocBuildBinary.run(["inspect", "A.app"], in: folder.url.path)
            #expect(result.status == 1)
            #expect(
                result.stderrText
                    == "error: A.app/Info.plist: is not a valid plist: 1:29: XML: Opening and ending tag mismatch: key line 1 and string\n")
        }
    }

    /// Text its declared encoding cannot convert: libxml2 printed three lines of its own before ours.
    @Test func libxml2PrintsNothingOfItsOwn() throws {
        try withTemporaryFolder { folder in
            var bytes = Array("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?>\n<plist><string>".utf8)
            bytes += [0x81, 0xFF, 0x82] + Array("</string></plist>".utf8)
            try folder.create("Info.plist", Data(bytes))
            let result = try AdhocBuildBinary.run(["plist", "print", "Info.plist"], in: folder.url.path)
            #expect(result.status == 1)
            #expect(
                result.stderrText
                    == "error: Info.plist: 1:41: XML: encoding error: input conversion failed due to input error, bytes 0x81 0xFF 0x82 0x3C\n"
            )
        }
    }

    /// `release --out ShoutOut.app/dist` copied the app into itself until the path was too long; `package
    /// -o X.app/out.ipa` and `icon extract -o X.app/icons` wrote into the app. Each is refused in one
    /// line naming both paths, and nothing is written.
    @Test func anOutputInsideTheInputIsRefusedBeforeAnythingIsWritten() throws {
        try withTemporaryFolder { folder in
            _ = try Self.exampleApp(folder)
            try FileManager.default.copyItem(
                atPath: Fixtures.packageRoot.appendingPathComponent("environments").path, toPath: folder.path("environments"))
            let before = folder.snapshot()
            let inside = "is inside the input ShoutOut.app, which writing it would change; write it somewhere else"
            for (arguments, error) in [
                (
                    [
                        "release", "--env", "Staging", "--app", "ShoutOut.app", "--out", "ShoutOut.app/dist", "--base-url",
                        "https://x.example/"
                    ],
                    "error: Check the input files failed: ShoutOut.app/dist: \(inside)"
                ),
                (["package", "ShoutOut.app", "-o", "ShoutOut.app/out.ipa"], "error: ShoutOut.app/out.ipa: \(inside)"),
                (
                    ["icon", "extract", "ShoutOut.app", "-o", "ShoutOut.app/Frameworks/../icons"],
                    "error: ShoutOut.app/Frameworks/../icons: \(inside)"
                )
            ] {
                let result = try AdhocBuildBinary.run(arguments, in: folder.url.path)
                #expect(result.status == 1, "\(arguments)")
                #expect(result.stderrText.split(separator: "\n").last.map(String.init) == error, "\(result.stderrText)")
                #expect(result.stderrText.split(separator: "\n").filter { $0.hasPrefix("error:") }.count == 1)
                #expect(folder.snapshot() == before, "\(arguments)")
            }
            // An app folder is changed where it is: an --output for it, which was ignored, is a usage error.
            for arguments in [
                ["env", "apply", "Staging", "--app", "ShoutOut.app", "-o", "ShoutOut.app/B.app"],
                ["version", "bump", "build", "ShoutOut.app", "--to", "9", "-o", "ShoutOut.app/B.app"]
            ] {
                let refused = try AdhocBuildBinary.run(arguments, in: folder.url.path)
                #expect(refused.status == 2, "\(arguments): \(refused.stderrText)")
                #expect(folder.snapshot() == before, "\(arguments)")
            }
        }
    }

    /// A file name that is not UTF-8 was decoded with replacement characters and then not found
    /// (`bad��.txt: cannot be read: No such file or directory`).
    @Test func aFileNameThatIsNotUTF8IsNamedWithItsBytes() throws {
        try withTemporaryFolder { folder in
            _ = try Self.exampleApp(folder)
            let script = "open(b'ShoutOut.app/bad\\xff\\xfe.txt', 'wb').write(b'x')"
            let made = try ProcessResult.run("/usr/bin/python3", ["-c", script], in: folder.url.path)
            try #require(made.status == 0, "\(made.stderrText)")
            let result = try AdhocBuildBinary.run(["package", "ShoutOut.app", "-o", "out.ipa"], in: folder.url.path)
            #expect(result.status == 1)
            #expect(
                result.stderrText
                    == "error: ShoutOut.app: holds a file whose name is not UTF-8 ('bad\\xFF\\xFE.txt'); an ipa names its files in UTF-8, so rename it\n"
            )
        }
    }

    /// `env apply --app in.ipa -o out.ipa` and `version bump` of an ipa change it in a work folder
    /// beside the output: a bad Info.plist there was named `.adhocbuild-tmp-out.ipa-…/Payload/…`; it is
    /// the input's entry.
    @Test func aProblemInAnUnpackedIpaNamesTheInputAndTheEntry() throws {
        try withTemporaryFolder { folder in
            _ = try Self.exampleApp(folder)
            try FileManager.default.copyItem(
                atPath: Fixtures.packageRoot.appendingPathComponent("environments").path, toPath: folder.path("environments"))
            try Self.badIpa(folder, plist: "Payload/ShoutOut.app/Info.plist")
            let expected = "bad.ipa: Payload/ShoutOut.app/Info.plist: 1:29: XML: Opening and ending tag mismatch: key line 1 and string"
            for arguments in [
                ["env", "apply", "Staging", "--app", "bad.ipa", "-o", "out.ipa"], ["version", "bump", "build", "bad.ipa", "-o", "out.ipa"]
            ] {
                let result = try AdhocBuildBinary.run(arguments, in: folder.url.path)
                #expect(result.status == 1, "\(arguments)")
                #expect(result.stderrText.contains(expected), "\(arguments): \(result.stderrText)")
                #expect(!result.stderrText.contains(".adhocbuild-tmp"), "\(arguments): \(result.stderrText)")
                #expect(!FileManager.default.fileExists(atPath: folder.path("out.ipa")))
            }
        }
    }

    /// `release` copied the app before anything checked what it holds: a FIFO made the copy wait
    /// forever. The input check names it at once.
    @Test func aFIFOInTheAppIsNamedInsteadOfWaitedOn() throws {
        try withTemporaryFolder { folder in
            let app = try Self.exampleApp(folder)
            try FileManager.default.copyItem(
                atPath: Fixtures.packageRoot.appendingPathComponent("environments").path, toPath: folder.path("environments"))
            try #require(mkfifo(app + "/pipe", 0o644) == 0)
            let result = try ProcessResult.run(
                "/usr/bin/timeout",
                ["30", AdhocBuildBinary.path, "release", "--env", "Staging", "--app", "ShoutOut.app", "--base-url", "https://x.example/"],
                in: folder.url.path)
            #expect(result.status == 1)
            #expect(
                result.stderrText.hasSuffix(
                    "error: Check the input files failed: ShoutOut.app/pipe: is neither a file, a folder nor a symbolic link\n"),
                "\(result.stderrText)")
        }
    }

    /// Signing an ipa unpacks it into a temporary folder: a problem found there was named
    /// `bad.ipa Payload/…` (or the temporary folder itself); it is the ipa and the entry.
    @Test func aProblemInsideASignedIpaNamesTheIpaAndTheEntry() throws {
        try withTemporaryFolder { folder in
            let (made, profile) = try CodeSignSignCLITests.setUp(folder)
            _ = try Self.exampleApp(folder)
            try Self.badIpa(folder, plist: "Payload/ShoutOut.app/Frameworks/ShoutKit.framework/Info.plist")
            let result = try AdhocBuildBinary.run(
                [
                    "codesign", "sign", "bad.ipa", "-o", "out.ipa", "--identity", made.rsa, "--password-file", made.passwordFile,
                    "--profile", profile
                ], in: folder.url.path)
            #expect(result.status == 1)
            #expect(
                result.stderrText
                    == "error: bad.ipa: Payload/ShoutOut.app/Frameworks/ShoutKit.framework/Info.plist: 1:29: XML: Opening and ending tag mismatch: key line 1 and string\n"
            )
            #expect(CodeSignSignCLITests.temporaries(in: folder.url.path) == [])
        }
    }
}

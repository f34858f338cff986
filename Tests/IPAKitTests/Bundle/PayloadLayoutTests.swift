import Foundation
import IPAKit
import SystemSupport
import TestSupport
import Testing

/// Every Payload shape iOS's installer refuses gets one clear error from `AppPackage.open` (and so
/// from `inspect`, `verify` and `release`), made with Python's zipfile, which writes any name.
@Suite struct PayloadLayoutTests {
    /// A minimal app's entries under `root` (`Payload/A.app`), as Python statements on `z`.
    static func app(_ root: String) -> String {
        """
        z.writestr('\(root)/Info.plist', plistlib.dumps({'CFBundleIdentifier': 'com.example.a', 'CFBundleExecutable': 'A', \
        'CFBundleVersion': '1', 'CFBundleShortVersionString': '1.0'}))
        z.writestr('\(root)/A', b'binary')
        """
    }

    /// Writes a zip with `statements` (Python, `z` open for writing) and returns its path.
    func makeIPA(_ folder: TemporaryFolder, _ name: String, _ statements: String) throws -> String {
        let path = folder.path(name)
        let python = try #require(ProcessResult.which("python3"))
        let script = "import sys, zipfile, plistlib, stat\nz = zipfile.ZipFile(sys.argv[1], 'w')\n" + statements + "\nz.close()\n"
        let result = try ProcessResult.run(python, ["-c", script, path])
        try #require(result.status == 0, "python: \(result.stderrText)")
        return path
    }

    @Test func aPayloadWithExactlyOneAppOpens() throws {
        try withTemporaryFolder { folder in
            let path = try makeIPA(
                folder, "good.ipa",
                Self.app("Payload/A.app") + "\nz.writestr('__MACOSX/Payload/._A.app', b'x')"
                    + "\nz.writestr('SwiftSupport/iphoneos/libswiftCore.dylib', b'x')")
            let package = try AppPackage.open(path)
            #expect(package.app.name == "A.app")
            #expect(package.extras == ["SwiftSupport"])
        }
    }

    @Test(
        arguments: [
            // Two apps: the installer cannot tell which to install.
            (
                "two-apps", Self.app("Payload/A.app") + "\n" + Self.app("Payload/B.app"),
                nil, "holds 2 apps in Payload (A.app, B.app); iOS installs an ipa holding exactly one"
            ),
            // The same app under two spellings of its name, or of Payload.
            (
                "case-apps", Self.app("Payload/A.app") + "\n" + Self.app("Payload/a.app"),
                "Payload/a.app",
                "differs from 'Payload/A.app' only in letter case or Unicode form, so the two are one file on a Mac's file system and two elsewhere"
            ),
            (
                "case-payload", Self.app("Payload/A.app") + "\nz.writestr('payload/A.app/Extra', b'x')",
                "payload",
                "differs from 'Payload' only in letter case or Unicode form, so the two are one file on a Mac's file system and two elsewhere"
            ),
            (
                "case-info", Self.app("Payload/A.app") + "\nz.writestr('Payload/A.app/info.plist', b'<plist/>')",
                "Payload/A.app/info.plist",
                "differs from 'Payload/A.app/Info.plist' only in letter case or Unicode form, so the two are one file on a Mac's file system and two elsewhere"
            ),
            (
                "unicode-forms", Self.app("Payload/Caf\u{E9}.app") + "\n" + Self.app("Payload/Cafe\u{301}.app"),
                "Payload/Cafe\u{301}.app/Info.plist",
                "differs from 'Payload/Caf\u{E9}.app/Info.plist' only in letter case or Unicode form, so the two are one file on a Mac's file system and two elsewhere"
            ),
            (
                "unicode-folders", Self.app("Payload/Caf\u{E9}.app") + "\nz.writestr('Payload/Cafe\u{301}.app/Other', b'x')",
                "Payload/Cafe\u{301}.app",
                "differs from 'Payload/Caf\u{E9}.app' only in letter case or Unicode form, so the two are one file on a Mac's file system and two elsewhere"
            ),
            // Names whose place depends on the unzip tool.
            (
                "double-slash", Self.app("Payload/A.app") + "\nz.writestr('Payload//A.app/Info.plist', b'x')",
                "Payload//A.app/Info.plist",
                "is not a plain path (empty, '.' or backslash-separated parts), so unzip tools disagree on where it goes"
            ),
            (
                "dot", Self.app("./Payload/A.app"),
                "./Payload/A.app/Info.plist",
                "is not a plain path (empty, '.' or backslash-separated parts), so unzip tools disagree on where it goes"
            ),
            (
                "backslash", Self.app("Payload\\\\A.app"),
                "Payload\\A.app/Info.plist",
                "is not a plain path (empty, '.' or backslash-separated parts), so unzip tools disagree on where it goes"
            ),
            // A name that is a file and a folder at once.
            (
                "file-and-folder",
                Self.app("Payload/A.app") + "\nz.writestr('Payload/A.app/Resources', b'x')\nz.writestr('Payload/A.app/Resources/x', b'y')",
                "Payload/A.app/Resources", "is a file, but other entries are inside it"
            ),
            // The app itself must be a folder.
            ("app-is-file", "z.writestr('Payload/A.app', b'not a folder')", "Payload/A.app", "is a file, not an app folder"),
            (
                "app-is-link",
                "i = zipfile.ZipInfo('Payload/A.app'); i.external_attr = (stat.S_IFLNK | 0o755) << 16; z.writestr(i, '/Applications/A.app')",
                "Payload/A.app", "is a symbolic link, not an app folder"
            ),
            // Payload's name is case-sensitive; an app must be directly inside it.
            (
                "lowercase-payload", Self.app("payload/A.app"), nil,
                "has no Payload folder (it has 'payload'; the name is case-sensitive), so it is not an ipa"
            ),
            (
                "payload-is-file", "z.writestr('Payload', b'not a folder')", nil,
                "has a file named Payload where the Payload folder should be, so it is not an ipa"
            ),
            ("nested-app", Self.app("Payload/Inner/A.app"), nil, "has no Payload/<Name>.app, so it is not an ipa"),
            ("empty-payload", "z.writestr('Payload/', b'')", nil, "has no Payload/<Name>.app, so it is not an ipa")
        ] as [(String, String, String?, String)])
    func aPayloadTheInstallerRefusesIsAClearError(name: String, statements: String, entry: String?, message: String) throws {
        try withTemporaryFolder { folder in
            let path = try makeIPA(folder, name + ".ipa", statements)
            FuzzSeeds.export(try Data(contentsOf: URL(fileURLWithPath: path)), harness: "ipa", name: "payload-" + name)
            #expect(throws: Diagnostic.ipa(message, file: path, entry: entry)) { try AppPackage.open(path) }
        }
    }
}

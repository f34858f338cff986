import Foundation
import TestSupport
import Testing

/// `package`, `inspect`, `verify`, `profile` and `icon` as a CI step runs them.
@Suite struct IPACLITests {
    @Test func packageWritesAnIPAAndReportsIt() throws {
        try withTemporaryFolder { folder in
            try folder.create("A.app/Info.plist", Data("<plist><dict><key>CFBundleExecutable</key><string>A</string></dict></plist>".utf8))
            let executable = try folder.create("A.app/A", Data(repeating: 0x41, count: 10_000))
            chmod(executable, 0o755)
            let result = try AdhocBuildBinary.run(["package", folder.path("A.app"), "-o", folder.path("A.ipa")])
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText.hasPrefix("\(folder.path("A.ipa")): 4 entries, 9.8 KB -> "))
            #expect(result.stdoutText.hasSuffix("% of the app's size)\n"), "\(result.stdoutText)")
            let quiet = try AdhocBuildBinary.run(["package", folder.path("A.app"), "-o", folder.path("B.ipa"), "-q", "--level", "0"])
            #expect(quiet.status == 0 && quiet.stdoutText == "" && quiet.stderrText == "")
            let badLevel = try AdhocBuildBinary.run(["package", folder.path("A.app"), "-o", folder.path("C.ipa"), "--level", "11"])
            #expect(badLevel.status == 2)
            #expect(badLevel.stderrText.hasPrefix("error: --level takes 0 to 9, not '11'\n"))
            let missing = try AdhocBuildBinary.run(["package", folder.path("Nope.app"), "-o", folder.path("D.ipa")])
            #expect(missing.status == 1)
            #expect(missing.stderrText == "error: \(folder.path("Nope.app")): no app bundle or archive here\n")
        }
    }

    /// The app folder's own name goes into Payload/: `.` and links are resolved, and a folder not
    /// named `<Name>.app` is refused (it made Payload/NoExt/, which iOS and `inspect` reject).
    @Test func packageNamesPayloadAfterTheBundleFolderAndRefusesOneNotNamedApp() throws {
        try withTemporaryFolder { folder in
            try folder.create("A.app/Info.plist", Data("<plist><dict><key>CFBundleExecutable</key><string>A</string></dict></plist>".utf8))
            chmod(try folder.create("A.app/A", Data(repeating: 0x41, count: 100)), 0o755)
            #expect(symlink("A.app", folder.path("Link")) == 0)
            #expect(symlink("A.app", folder.path("Named.app")) == 0)  // a bundle's name as given is kept
            for (input, cwd) in [(".", folder.path("A.app")), (folder.path("A.app") + "/.", nil), (folder.path("Link"), nil)] {
                let result = try AdhocBuildBinary.run(["package", input, "-o", folder.path("out.ipa"), "-q"], in: cwd)
                #expect(result.status == 0, "\(input): \(result.stderrText)")
                let inspect = try AdhocBuildBinary.run(["inspect", folder.path("out.ipa")])
                #expect(
                    inspect.status == 0 && inspect.stdoutText.contains("Payload/A.app"),
                    "\(input): \(inspect.stdoutText)\(inspect.stderrText)")
            }
            let named = try AdhocBuildBinary.run(["package", folder.path("Named.app"), "-o", folder.path("named.ipa"), "-q"])
            #expect(named.status == 0, "\(named.stderrText)")
            #expect(try AdhocBuildBinary.run(["inspect", folder.path("named.ipa")]).stdoutText.contains("Payload/Named.app"))
            try FileManager.default.copyItem(atPath: folder.path("A.app"), toPath: folder.path("NoExt"))
            let refused = try AdhocBuildBinary.run(["package", folder.path("NoExt"), "-o", folder.path("no.ipa")])
            #expect(refused.status == 1)
            #expect(
                refused.stderrText == "error: \(folder.path("NoExt")): is a folder named 'NoExt', not '<Name>.app': an ipa holds "
                    + "Payload/<Name>.app, the only layout iOS installs; rename the folder (Xcode names it after the product)\n")
            #expect(!FileManager.default.fileExists(atPath: folder.path("no.ipa")))
        }
    }

    /// `-o -` writes the checked ipa to standard output (its summary to standard error), the same
    /// bytes as into a file.
    @Test func packageWritesTheIpaToStandardOutputWithADash() throws {
        try withTemporaryFolder { folder in
            try folder.create("A.app/Info.plist", Data("<plist><dict><key>CFBundleExecutable</key><string>A</string></dict></plist>".utf8))
            chmod(try folder.create("A.app/A", Data(repeating: 0x41, count: 10_000)), 0o755)
            let file = try AdhocBuildBinary.run(["package", folder.path("A.app"), "-o", folder.path("A.ipa"), "--reproducible"])
            #expect(file.status == 0, "\(file.stderrText)")
            let piped = try AdhocBuildBinary.run(["package", folder.path("A.app"), "-o", "-", "--reproducible"])
            #expect(piped.status == 0, "\(piped.stderrText)")
            #expect(piped.stdout == (try Data(contentsOf: URL(fileURLWithPath: folder.path("A.ipa")))))
            #expect(piped.stderrText.hasPrefix("standard output: 4 entries, 9.8 KB -> "))
            // Named as /dev/stdout: the ipa alone on standard output, the summary beside it.
            let named = try AdhocBuildBinary.run(["package", folder.path("A.app"), "-o", "/dev/stdout", "--reproducible"])
            #expect(named.status == 0, "\(named.stderrText)")
            #expect(named.stdout == piped.stdout)
            #expect(named.stderrText.hasPrefix("/dev/stdout: 4 entries, 9.8 KB -> "))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["A.app", "A.ipa"])
        }
    }

    @Test(Fixtures.enabled) func inspectAndVerifyARealIPA() throws {
        let ipa = Fixtures.url("ipa", "app_info_embedded_enterprise-appex.ipa").path
        let inspect = try AdhocBuildBinary.run(["inspect", ipa])
        #expect(inspect.status == 0)
        #expect(inspect.stdoutText.contains("bundleIdentifier: com.icyleaf.test.Demo\n"))
        #expect(inspect.stdoutText.contains("  type:             enterprise\n"))
        #expect(inspect.stdoutText.contains("  profileSignature: verifies, signed by Apple iPhone OS Provisioning Profile Signing\n"))
        // The seal holds; the expired profile and certificate stop the install, on the item's install line.
        #expect(inspect.stdoutText.contains("signature:        uninstallable\n"))
        #expect(inspect.stdoutText.contains("    install:              refused: Payload/Demo.app: "))
        #expect(inspect.stdoutText.contains("  - path:                 Payload/Demo.app\n    status:               signed\n"))
        #expect(inspect.stdoutText.contains("    signer:               iPhone Distribution:"))
        let json = try AdhocBuildBinary.run(["inspect", ipa, "--json"])
        #expect(!json.stdoutText.contains("signatureVerified"))
        #expect(json.stdoutText.contains("\"profileSignature\": \"verifies, signed by Apple iPhone OS Provisioning Profile Signing\""))
        let verify = try AdhocBuildBinary.run(["verify", ipa, "--at", "2021-06-01"])
        #expect(verify.status == 0)
        #expect(verify.stdoutText == "\(ipa): ready to publish (0 errors, 0 warnings)\n")
        let expired = try AdhocBuildBinary.run(["verify", ipa])
        #expect(expired.status == 1)
        #expect(
            expired.stderrText.hasPrefix(
                "error: \(ipa): Payload/Demo.app: profile 'iOS Team Inhouse Provisioning Profile: com.icyleaf.test.Demo' expired on 2022-01-15T06:40:53Z\n"
            ))
        let verifyJSON = try AdhocBuildBinary.run(["verify", ipa, "--json"])
        #expect(verifyJSON.stdoutText.contains("\"ok\": false"))
        // Each finding is a diagnostic through the one JSON printer: its code and the bundle it is about.
        #expect(verifyJSON.stdoutText.contains("\"severity\": \"error\",\n      \"code\": \"ipa.invalid\","))
        #expect(verifyJSON.stdoutText.contains("\"subject\": \"Payload/Demo.app\",\n      \"message\": \"profile '"))
        // A signature finding carries its kind: the signer certificate iOS refuses as expired.
        let expiredSigner = """
                  "code": "codesign.expired",
                  "places": [
                    "Payload/Demo.app"
                  ],
                  "subject": "Payload/Demo.app",
                  "message": "install: signer certificate
            """
        #expect(verifyJSON.stdoutText.contains(expiredSigner))
    }

    @Test(Fixtures.enabled) func profileShowAndDevices() throws {
        let profile = Fixtures.url("mobileprovision", "app_info_ios_adhoc_1device.mobileprovision").path
        let show = try AdhocBuildBinary.run(["profile", "show", profile])
        #expect(show.stdoutText.contains("type:             ad-hoc\n"))
        // The profile's own CMS signature is checked, no longer "not verified".
        #expect(show.stdoutText.hasSuffix("profileSignature: verifies, signed by Apple iPhone OS Provisioning Profile Signing\n"))
        let devices = try AdhocBuildBinary.run(["profile", "devices", profile])
        #expect(devices.stdoutText.split(separator: "\n").count == 1)
        let enterprise = try AdhocBuildBinary.run([
            "profile", "devices", Fixtures.url("mobileprovision", "app_info_embedded-ipa_enterprise-inhouse.mobileprovision").path
        ])
        #expect(enterprise.stdoutText == "" && enterprise.stderrText.contains("an enterprise profile; it allows every device"))
    }

    /// `profile show` lists every entitlement the profile grants, in text and JSON: it listed 3 of
    /// the 26 of fastlane's very capable app.
    @Test(Fixtures.enabled) func profileShowListsEveryEntitlement() throws {
        try withTemporaryFolder { folder in
            let ipa = Fixtures.url("ipa", "fastlane_very-capable-app_dev-xcode9.ipa").path
            let unzip = try ProcessResult.run(
                try #require(ProcessResult.which("unzip")), ["-p", ipa, "Payload/very-capable-app.app/embedded.mobileprovision"])
            let profile = try folder.write("capable.mobileprovision", unzip.stdout)
            let json = try AdhocBuildBinary.run(["profile", "show", profile, "--json"])
            #expect(json.status == 0, "\(json.stderrText)")
            let summary = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
            let entitlements = try #require(summary["entitlements"] as? [String: Any])
            #expect(entitlements.count == 26)
            #expect(entitlements["com.apple.developer.siri"] as? Bool == true)
            #expect(entitlements["com.apple.developer.icloud-container-environment"] as? [String] == ["Development", "Production"])
            let text = try AdhocBuildBinary.run(["profile", "show", profile])
            let lines = text.stdoutText.split(separator: "\n")
            let first = try #require(lines.firstIndex(of: "entitlements:"))
            let listed = lines[(first + 1)...].prefix { $0.hasPrefix("  ") }
            #expect(listed.count == 26)
            #expect(listed.contains { $0.hasPrefix("  com.apple.developer.networking.vpn.api: ") && $0.hasSuffix(" allow-vpn") })
            #expect(listed.contains { $0.hasPrefix("  com.apple.security.application-groups: ") && $0.hasSuffix(" -") })
        }
    }

    @Test(Fixtures.enabled) func iconExtractWritesStandardPNGsOrSaysWhyNot() throws {
        try withTemporaryFolder { folder in
            let result = try AdhocBuildBinary.run([
                "icon", "extract", Fixtures.url("ipa", "app_info_ipad_appstore-cgbi-icons.ipa").path,
                "-o", folder.path("icons")
            ])
            #expect(result.status == 0)
            #expect(result.stdoutText.hasSuffix("\(folder.path("icons"))/icon.png: the largest, 167x167\n"))
            let png = try Data(contentsOf: URL(fileURLWithPath: folder.path("icons/icon.png")))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && !png[12..<16].elementsEqual("CgBI".utf8))
            let catalog = try AdhocBuildBinary.run([
                "icon", "extract", Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path, "-o", folder.path("catalog")
            ])
            #expect(catalog.status == 0, "\(catalog.stderrText)")
            let icons = folder.path("catalog")
            #expect(
                catalog.stdoutText == """
                    \(icons)/AppIcon-180x180@3x~iphone.png: 180x180
                    \(icons)/AppIcon-180x180@2x~iphone.png: 180x180
                    \(icons)/icon.png: the largest, 180x180

                    """)
            let none = try AdhocBuildBinary.run([
                "icon", "extract", Fixtures.url("ipa", "app_info_embedded_enterprise-appex.ipa").path, "-o", folder.path("none")
            ])
            #expect(none.status == 1)
            #expect(none.stderrText.contains("has no icon to extract: it declares no icons"), "\(none.stderrText)")
            // A file where the folder should be: one line naming it, not Foundation's error dump.
            try folder.create("afile", Data("x".utf8))
            let blocked = try AdhocBuildBinary.run([
                "icon", "extract", Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path, "-o", folder.path("afile/icons")
            ])
            #expect(blocked.status == 1)
            #expect(
                blocked.stderrText
                    == "error: \(folder.path("afile/icons")): cannot be made: \(folder.path("afile")) is a file, not a folder\n")
        }
    }

    /// `icon list` shows the catalog's icon renditions with the one the page uses marked, and the
    /// icon files of an app that has them.
    @Test(Fixtures.enabled) func iconListShowsFilesAndCatalogRenditions() throws {
        let catalog = try AdhocBuildBinary.run(["icon", "list", Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path])
        #expect(catalog.status == 0, "\(catalog.stderrText)")
        #expect(
            catalog.stdoutText == """
                Assets.car, icon set 'AppIcon':
                  'AppIcon' icon-1.png 180x180 @2x iphone, ARGB lzfse
                * 'AppIcon' icon-1.png 180x180 @3x iphone, ARGB lzfse

                """)
        let files = try AdhocBuildBinary.run(["icon", "list", Fixtures.url("ipa", "app_info_ipad_appstore-cgbi-icons.ipa").path])
        #expect(files.stdoutText.hasPrefix("icon files:\n* AppIcon83.5x83.5@2x~ipad.png 167x167 (CgBI)\n  AppIcon76x76@2x~ipad.png"))
        let none = try AdhocBuildBinary.run(["icon", "list", Fixtures.url("ipa", "app_info_embedded_enterprise-appex.ipa").path])
        #expect(none.status == 0)
        #expect(none.stdoutText == "icon files: none\nno icon for the install page: it declares no icons\n")
    }

    /// `version show` reads every real ipa in place and agrees with Python's zipfile and plistlib on the
    /// app's and each extension's bundle id, version and build; `version bump` refuses a signed ipa.
    @Test(Fixtures.enabled) func versionShowReadsRealIPAsInPlaceAsPlistlibDoes() throws {
        let oracle = """
            import json, plistlib, re, sys, zipfile
            rows = []
            for name in zipfile.ZipFile(sys.argv[1]).namelist():
                if re.fullmatch(r"Payload/[^/]+\\.app/(PlugIns/[^/]+\\.appex/)?Info\\.plist", name):
                    p = plistlib.loads(zipfile.ZipFile(sys.argv[1]).read(name))
                    rows.append({"name": name, "bundleIdentifier": p.get("CFBundleIdentifier"),
                                 "marketingVersion": p.get("CFBundleShortVersionString"),
                                 "buildNumber": p.get("CFBundleVersion")})
            print(json.dumps(sorted(rows, key=lambda r: r["name"])))
            """
        for ipa in Fixtures.files(in: "ipa") where ipa.pathExtension == "ipa" {
            let result = try AdhocBuildBinary.run(["version", "show", ipa.path, "--json"])
            #expect(result.status == 0, "\(ipa.lastPathComponent): \(result.stderrText)")
            let ours = try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]] ?? []
            let python = try ProcessResult.run("/usr/bin/python3", ["-c", oracle, ipa.path])
            let expected = try JSONSerialization.jsonObject(with: python.stdout) as? [[String: Any]] ?? []
            func key(_ row: [String: Any]) -> String {
                ["name", "bundleIdentifier", "marketingVersion", "buildNumber"].map { "\(row[$0] ?? "-")" }.joined(separator: " ")
            }
            #expect(ours.map(key).sorted() == expected.map(key).sorted(), "\(ipa.lastPathComponent)")
            #expect(!ours.isEmpty)
        }
        let ipa = Fixtures.url("ipa", "app_info_embedded_enterprise-appex.ipa").path
        let before = try Data(contentsOf: URL(fileURLWithPath: ipa))
        let bump = try AdhocBuildBinary.run(["version", "bump", "build", ipa, "--to", "2"])
        #expect(bump.status == 1)
        #expect(
            bump.stderrText
                == "error: \(ipa): is an archive: name the new ipa with --output OUT.ipa (the input's own path replaces it)\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: ipa)) == before)
    }

}

import Foundation
import IPAKit
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// Packaging checked by tools nobody here wrote: Info-ZIP's `unzip -t` and `zipinfo`, and Python's `zipfile`.
@Suite struct IPAPackagerTests {
    /// A small app: an executable, resources in folders, a non-ASCII name, a framework with
    /// symlinks, a large binary (several chunks), and junk that must be left out.
    static func makeApp(in folder: TemporaryFolder, name: String = "ShoutOut.app") throws -> String {
        let app = name
        try folder.create(
            "\(app)/Info.plist",
            try PropertyList.encode(
                [
                    "CFBundleIdentifier": "com.example.shoutout", "CFBundleExecutable": "ShoutOut", "CFBundleVersion": "7",
                    "CFBundleShortVersionString": "1.0"
                ], format: .binary))
        var binary = [UInt8]()
        var state: UInt64 = 42
        for _ in 0..<(3 << 20) {
            state = state &* 6_364_136_223_846_793_005 &+ 1
            binary.append(state >> 60 < 6 ? UInt8(truncatingIfNeeded: state >> 33) : 0x41)
        }
        let executable = try folder.create("\(app)/ShoutOut", Data(binary))
        chmod(executable, 0o755)
        try folder.create("\(app)/Base.lproj/Main.strings", Data(String(repeating: "\"key\" = \"value\";\n", count: 200).utf8))
        try folder.create("\(app)/Résumé – 日本.txt", Data("unicode name".utf8))
        try folder.create("\(app)/empty.dat", Data())
        try folder.create("\(app)/.DS_Store", Data("junk".utf8))
        try folder.create("\(app)/__MACOSX/junk", Data("junk".utf8))
        try folder.create("\(app)/Frameworks/Kit.framework/Versions/A/Kit", Data(repeating: 7, count: 5000))
        try FileManager.default.createSymbolicLink(
            atPath: folder.path("\(app)/Frameworks/Kit.framework/Versions/Current"), withDestinationPath: "A")
        try FileManager.default.createSymbolicLink(
            atPath: folder.path("\(app)/Frameworks/Kit.framework/Kit"), withDestinationPath: "Versions/Current/Kit")
        return folder.path(app)
    }

    /// Python's view of an archive: name, mode, size, flag bits, UTF-8 flag, method, and a hash of the data.
    static func describe(_ path: String) throws -> [String] {
        let python = try #require(ProcessResult.which("python3"))
        let result = try ProcessResult.run(
            python,
            [
                "-c",
                """
                import sys, zipfile, hashlib
                with zipfile.ZipFile(sys.argv[1]) as z:
                    assert z.testzip() is None
                    for i in z.infolist():
                        data = z.read(i)
                        print(i.filename, oct(i.external_attr >> 16), i.file_size, i.flag_bits & 0x08, i.flag_bits & 0x800,
                              i.compress_type, i.create_system, hashlib.sha256(data).hexdigest()[:12], i.date_time, sep='\t')
                """, path
            ])
        try #require(result.status == 0, "zipfile failed: \(result.stderrText)")
        return result.stdoutText.split(separator: "\n").map(String.init)
    }

    @Test func aPackagedAppPassesUnzipAndKeepsModesLinksAndNames() throws {
        try withTemporaryFolder { folder in
            let app = try Self.makeApp(in: folder)
            let ipa = folder.path("ShoutOut.ipa")
            let report = try IPAPackager().package(app, to: ipa)
            #expect(report.warnings == [])
            let unzip = try ProcessResult.run(try #require(ProcessResult.which("unzip")), ["-tq", ipa])
            #expect(unzip.status == 0 && unzip.stdoutText.hasPrefix("No errors detected"), "\(unzip.stdoutText)")
            let lines = try Self.describe(ipa)
            let names = lines.map { String($0.split(separator: "\t")[0]) }
            #expect(names.contains("Payload/"))
            #expect(names.contains("Payload/ShoutOut.app/Frameworks/Kit.framework/Versions/Current"))
            #expect(!names.contains { $0.contains(".DS_Store") || $0.contains("__MACOSX") })
            func line(_ name: String) -> [Substring] { lines.first { $0.hasPrefix(name + "\t") }?.split(separator: "\t") ?? [] }
            // Executable 0755, plain files 0644-ish as on disk, folders 040755, links 0120777; no data descriptors; Unix.
            #expect(line("Payload/ShoutOut.app/ShoutOut")[1] == "0o100755")
            #expect(line("Payload/ShoutOut.app/ShoutOut")[3] == "0")
            #expect(line("Payload/ShoutOut.app/ShoutOut")[5] == "8")
            #expect(line("Payload/ShoutOut.app/Frameworks/Kit.framework/Kit")[1] == "0o120777")
            #expect(line("Payload/ShoutOut.app/Frameworks/")[1].hasPrefix("0o40"))
            #expect(line("Payload/ShoutOut.app/ShoutOut")[6] == "3")
            // The non-ASCII name is flagged UTF-8; the empty file is stored.
            #expect(lines.contains { $0.hasPrefix("Payload/ShoutOut.app/Résumé – 日本.txt\t") && $0.split(separator: "\t")[4] == "2048" })
            #expect(line("Payload/ShoutOut.app/empty.dat")[5] == "0")
            // The link's data is its target.
            let zipinfo = try ProcessResult.run(try #require(ProcessResult.which("zipinfo")), [ipa])
            #expect(zipinfo.stdoutText.contains("lrwxrwxrwx"))
            let target = try ProcessResult.run(
                try #require(ProcessResult.which("unzip")), ["-p", ipa, "Payload/ShoutOut.app/Frameworks/Kit.framework/Kit"])
            #expect(target.stdoutText == "Versions/Current/Kit")
            // Every file's content is intact (the multi-chunk binary included).
            let original = try Data(contentsOf: URL(fileURLWithPath: app + "/ShoutOut"))
            let unpacked = try ProcessResult.run(try #require(ProcessResult.which("unzip")), ["-p", ipa, "Payload/ShoutOut.app/ShoutOut"])
            #expect(unpacked.stdout == original)
        }
    }

    /// A name with a control character cannot be read back the same way (libzip refuses it flagged
    /// UTF-8 and reads it as CP437 otherwise; an ipa with a BEL in its app's name was written, then
    /// called damaged by the reader): refused before anything is written, in the app's own name too.
    @Test func aNameWithAControlCharacterIsRefusedBeforeWriting() throws {
        let cases = [
            ("ShoutOut.app/a\u{07}b.png", "a\\u{07}b.png", "\\u{07}"), ("ShoutOut.app/Base.lproj/x\ny", "x\\u{0A}y", "\\u{0A}"),
            ("ShoutOut.app/del\u{7F}", "del\\u{7F}", "\\u{7F}"), ("Shout\u{07}Out.app/Info.plist", "Shout\\u{07}Out.app", "\\u{07}"),
            ("ShoutOut.app/back\\slash.png", "back\\slash.png", "\\")
        ]
        for (file, shown, character) in cases {
            try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
                let app = try Self.makeApp(in: folder, name: String(file.prefix { $0 != "/" }))
                try folder.create(file, Data("x".utf8))
                let output = folder.path("out.ipa")
                let error = try requireDiagnostic(IPAProblem.self, "\(file)") { try IPAPackager().package(app, to: output) }
                let expected =
                    character == "\\"
                    ? "\(shown): has a backslash in its name, which unzip tools take for a folder separator; rename it"
                    : "\(shown): has a control character (\(character)) in its name, which zip readers read differently; rename it"
                #expect(error.description.hasSuffix(expected), "\(error)")
                #expect(!FileManager.default.fileExists(atPath: output))
            }
        }
    }

    @Test func reproducibleOutputIsByteIdenticalWhateverTheTimesAndTimeZone() throws {
        try withTemporaryFolder { folder in
            let app = try Self.makeApp(in: folder)
            var options = IPAPackager.Options()
            options.reproducible = true
            options.sourceDateEpoch = 1_700_000_000
            _ = try IPAPackager(options: options).package(app, to: folder.path("one.ipa"))
            // Touch every file, then package again.
            let enumerator = FileManager.default.enumerator(atPath: app)!
            while let relative = enumerator.nextObject() as? String {
                try? FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)],
                    ofItemAtPath: app + "/" + relative)
            }
            options.threads = 1
            _ = try IPAPackager(options: options).package(app, to: folder.path("two.ipa"))
            let one = try Data(contentsOf: URL(fileURLWithPath: folder.path("one.ipa")))
            let two = try Data(contentsOf: URL(fileURLWithPath: folder.path("two.ipa")))
            #expect(one == two)
            let lines = try Self.describe(folder.path("one.ipa"))
            #expect(lines.allSatisfy { $0.hasSuffix("(2023, 11, 14, 22, 13, 20)") })
        }
    }

    /// The help shows `defaultLevel` without making an `Options` (which asks for the processor count).
    @Test func theDefaultLevelIsZipsSixAndWhatOptionsStartWith() {
        #expect(IPAPackager.Options.defaultLevel == 6)
        #expect(IPAPackager.Options().level == IPAPackager.Options.defaultLevel)
    }

    @Test func levelZeroStoresAndAProfileIsEmbedded() throws {
        try withTemporaryFolder { folder in
            let app = try Self.makeApp(in: folder)
            let profile = folder.path("Team.mobileprovision")
            let script = Fixtures.packageRoot.appendingPathComponent("scripts/make-example-profile.sh").path
            let made = try ProcessResult.run("/bin/bash", [script, profile])
            try #require(made.status == 0, "make-example-profile.sh: \(made.stderrText)")
            var options = IPAPackager.Options()
            options.level = 0
            options.profile = profile
            _ = try IPAPackager(options: options).package(app, to: folder.path("stored.ipa"))
            let lines = try Self.describe(folder.path("stored.ipa"))
            #expect(lines.filter { !$0.split(separator: "\t")[0].hasSuffix("/") }.allSatisfy { $0.split(separator: "\t")[5] == "0" })
            let embedded = try ProcessResult.run(
                try #require(ProcessResult.which("unzip")),
                ["-p", folder.path("stored.ipa"), "Payload/ShoutOut.app/embedded.mobileprovision"])
            #expect(embedded.stdout == (try Data(contentsOf: URL(fileURLWithPath: profile))))
        }
    }

    /// Only a provisioning profile for iOS is embedded: an empty file, an Info.plist or a folder
    /// (each embedded as it was, found on the device) is refused before anything is written.
    @Test func whatIsNotAnIOSProfileIsNotEmbedded() throws {
        try withTemporaryFolder { folder in
            let app = try Self.makeApp(in: folder)
            var options = IPAPackager.Options()
            for (profile, message) in [
                (try folder.write("empty.mobileprovision", Data()), "is not a provisioning profile (CMS envelope: truncated at byte 0)"),
                (app + "/Info.plist", "is not a provisioning profile (CMS envelope: bytes after the envelope)"),
                (app, "is a folder, not a provisioning profile")
            ] {
                options.profile = profile
                #expect(throws: Diagnostic.ipa(message, file: profile)) {
                    try IPAPackager(options: options).package(app, to: folder.path("out.ipa"))
                }
            }
            if Fixtures.isAvailable || Fixtures.isRequired {
                let mac = Fixtures.url("mobileprovision", "app_info_macos_development.provisionprofile").path
                options.profile = mac
                #expect(
                    throws: Diagnostic.ipa("is a profile for OSX, not iOS; an iOS app needs a .mobileprovision made for iOS", file: mac)
                ) { try IPAPackager(options: options).package(app, to: folder.path("out.ipa")) }
            }
            #expect(!FileManager.default.fileExists(atPath: folder.path("out.ipa")))
        }
    }

    @Test func anArchiveGivesPayloadAndSwiftSupport() throws {
        try withTemporaryFolder { folder in
            _ = try Self.makeApp(in: folder, name: "My.xcarchive/Products/Applications/ShoutOut.app")
            try folder.create("My.xcarchive/SwiftSupport/iphoneos/libswiftCore.dylib", Data(repeating: 1, count: 100))
            try folder.create("My.xcarchive/Info.plist", try PropertyList.encode(["Name": "ShoutOut"], format: .xml))
            _ = try IPAPackager().package(folder.path("My.xcarchive"), to: folder.path("out.ipa"))
            let names = try Self.describe(folder.path("out.ipa")).map { String($0.split(separator: "\t")[0]) }
            #expect(names.contains("Payload/ShoutOut.app/ShoutOut"))
            #expect(names.contains("SwiftSupport/iphoneos/libswiftCore.dylib"))
            let package = try AppPackage.open(folder.path("out.ipa"))
            #expect(package.extras == ["SwiftSupport"])
            #expect(package.app.executable?.isExecutable == true)
        }
    }

    /// `v -> u/..` reads as inside, but with `u -> .` it leads to the bundle's parent: where a link
    /// really leads is checked too (it packaged with exit 0).
    @Test func aLinkThatLeadsOutThroughAnotherLinkIsRefused() throws {
        try withTemporaryFolder { folder in
            let app = try Self.makeApp(in: folder)
            try FileManager.default.createSymbolicLink(atPath: app + "/u", withDestinationPath: ".")
            try FileManager.default.createSymbolicLink(atPath: app + "/v", withDestinationPath: "u/..")
            #expect(
                throws: Diagnostic.ipa(
                    "is a symbolic link to 'u/..', which leads outside the bundle through another link", file: app + "/v")
            ) {
                try IPAPackager().package(app, to: folder.path("bad.ipa"))
            }
            #expect(!FileManager.default.fileExists(atPath: folder.path("bad.ipa")))
            try FileManager.default.removeItem(atPath: app + "/v")
            try FileManager.default.createSymbolicLink(atPath: app + "/v", withDestinationPath: "u/Info.plist")  // inside: fine
            _ = try IPAPackager().package(app, to: folder.path("good.ipa"))
        }
    }

    @Test func linksOutOfTheBundleAreRefusedAndNothingIsWritten() throws {
        try withTemporaryFolder { folder in
            let app = try Self.makeApp(in: folder)
            try FileManager.default.createSymbolicLink(atPath: app + "/Escape", withDestinationPath: "../../etc/passwd")
            #expect(
                throws: Diagnostic.ipa("is a symbolic link to '../../etc/passwd', which points outside the bundle", file: app + "/Escape")
            ) {
                try IPAPackager().package(app, to: folder.path("bad.ipa"))
            }
            try FileManager.default.removeItem(atPath: app + "/Escape")
            try FileManager.default.createSymbolicLink(atPath: app + "/Absolute", withDestinationPath: "/usr/lib/libz.so")
            #expect(
                throws: Diagnostic.ipa(
                    "is a symbolic link to '/usr/lib/libz.so', outside the bundle (absolute links break on devices)",
                    file: app + "/Absolute")
            ) {
                try IPAPackager().package(app, to: folder.path("bad.ipa"))
            }
            #expect(!FileManager.default.fileExists(atPath: folder.path("bad.ipa")))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix(".adhocbuild") } == [])
        }
    }

    @Test func aMissingOutputFolderOrInputIsAClearError() throws {
        try withTemporaryFolder { folder in
            let app = try Self.makeApp(in: folder)
            #expect(throws: Diagnostic.ipa("cannot be written: its folder does not exist", file: folder.path("nope/out.ipa"))) {
                try IPAPackager().package(app, to: folder.path("nope/out.ipa"))
            }
            #expect(throws: Diagnostic.ipa("no app bundle or archive here", file: folder.path("Missing.app"))) {
                try IPAPackager().package(folder.path("Missing.app"), to: folder.path("out.ipa"))
            }
        }
    }
}

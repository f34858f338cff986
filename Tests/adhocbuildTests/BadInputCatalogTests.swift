import Foundation
import TestSupport
import Testing

/// Runs the command line on a catalogue of bad inputs and checks the README's "What bad input gets"
/// table against what each one really prints, so the table stays true.
/// `ADHOCBUILD_RECORD_SNAPSHOTS=1` rewrites the table instead.
@Suite(.serialized) struct BadInputCatalogTests {
    /// One bad input: what it is, the file that holds it, and the command that reads it.
    struct BadInput: Sendable {
        var category: String
        var what: String
        var file: String
        /// Made when the case runs, so a failure to make it (python3 missing, say) fails the test
        /// instead of crashing the test process while the catalogue is built.
        var contents: @Sendable () throws -> Data
        /// Arguments, with `FILE` standing for the bad file's path.
        var arguments: [String]
        /// Extra files the command needs beside the bad one.
        var companions: [String: Data]
        /// Symbolic links to make beside the bad file: where each is, and what it points to.
        var links: [String: String]
        var environment: [String: String]

        init(
            category: String, what: String, file: String, contents: @autoclosure @escaping @Sendable () throws -> Data,
            arguments: [String], companions: [String: Data] = [:], links: [String: String] = [:], environment: [String: String] = [:]
        ) {
            self.category = category
            self.what = what
            self.file = file
            self.contents = contents
            self.arguments = arguments
            self.companions = companions
            self.links = links
            self.environment = environment
        }
    }

    static func text(_ string: String) -> Data { Data(string.utf8) }

    static let infoPlist = text("<plist><dict><key>CFBundleExecutable</key><string>A</string></dict></plist>")

    /// A zip archive from Python's `zipfile`, which writes what we ask without judging it.
    static func zip(_ entries: [(String, Data)], ratioBomb: Bool = false) throws -> Data {
        return try withTemporaryFolder { folder in
            var script = "import zipfile, sys\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)\n"
            for (name, data) in entries {
                script += "z.writestr(\(pythonString(name)), bytes.fromhex('\(data.map { String(format: "%02x", $0) }.joined())'))\n"
            }
            if ratioBomb { script += "z.writestr('Payload/A.app/zeros', b'\\0' * (200 << 20))\n" }
            script += "z.close()\n"
            let output = folder.path("out.zip")
            let result = try ProcessResult.run("/usr/bin/python3", ["-c", script, output])
            guard result.status == 0 else { throw SetupFailure("python3's zipfile failed: \(result.stderrText)") }
            return try Data(contentsOf: URL(fileURLWithPath: output))
        }
    }

    static func pythonString(_ string: String) -> String {
        "'" + string.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    /// A binary plist header and trailer around `objects`, with one offset per object.
    static func binaryPlist(objects: [UInt8], offsets: [UInt8], topObject: UInt8 = 0) -> Data {
        var data = Data("bplist00".utf8) + Data(objects)
        let tableOffset = UInt8(data.count)
        data += Data(offsets)
        data += Data(repeating: 0, count: 6) + Data([1, 1])
        data += Data(repeating: 0, count: 7) + Data([UInt8(offsets.count)])
        data += Data(repeating: 0, count: 7) + Data([topObject])
        data += Data(repeating: 0, count: 7) + Data([tableOffset])
        return data
    }

    /// Every bad input the table shows: the readers' and issue 31's.
    static let catalogue: [BadInput] = readerCatalogue + hostileCatalogue

    /// Bad input for each reader and command.
    static let readerCatalogue: [BadInput] = [
        // Plists
        BadInput(
            category: "XML plist", what: "not well-formed", file: "Info.plist",
            contents: text("<plist><dict><key>A</key><string>x</dict></plist>"), arguments: ["plist", "print", "FILE"]),
        BadInput(
            category: "XML plist", what: "an integer that is not a number", file: "Info.plist",
            contents: text("<plist><integer>twelve</integer></plist>"), arguments: ["plist", "print", "FILE"]),
        BadInput(
            category: "XML plist", what: "a key repeated in a dictionary", file: "Info.plist",
            contents: text("<plist><dict><key>A</key><true/><key>A</key><false/></dict></plist>"),
            arguments: ["plist", "print", "FILE"]),
        BadInput(
            category: "XML plist", what: "an entity declaration (XXE, billion laughs)", file: "Info.plist",
            contents: text("<!DOCTYPE plist [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><plist><string>&x;</string></plist>"),
            arguments: ["plist", "print", "FILE"]),
        BadInput(
            category: "XML plist", what: "nesting 600 levels deep", file: "Deep.plist",
            contents: text("<plist>" + String(repeating: "<array>", count: 600) + String(repeating: "</array>", count: 600) + "</plist>"),
            arguments: ["plist", "print", "FILE"]),
        BadInput(
            category: "XML plist", what: "bad base64 in <data>", file: "Info.plist",
            contents: text("<plist><data>not*base64</data></plist>"), arguments: ["plist", "print", "FILE"]),
        BadInput(
            category: "Binary plist", what: "truncated before the trailer", file: "Info.plist",
            contents: Data("bplist00".utf8) + Data([0x09, 0x08]), arguments: ["plist", "print", "FILE"]),
        BadInput(
            category: "Binary plist", what: "an array that contains itself", file: "Info.plist",
            contents: binaryPlist(objects: [0xA1, 0x00], offsets: [8]), arguments: ["plist", "print", "FILE"]),
        BadInput(
            category: "Binary plist", what: "an object offset past the end", file: "Info.plist",
            contents: binaryPlist(objects: [0x09], offsets: [200]), arguments: ["plist", "print", "FILE"]),
        BadInput(
            category: "OpenStep plist", what: "an unterminated string", file: "project.pbxproj",
            contents: text("{ a = \"never closed; }"), arguments: ["plist", "print", "FILE"]),
        BadInput(
            category: "JSON plist", what: "a null value (no plist equivalent)", file: "Info.json",
            contents: text("{\"a\": null}"), arguments: ["plist", "print", "FILE"]),
        BadInput(
            category: "Key paths", what: "a key that is not there", file: "Info.plist",
            contents: infoPlist, arguments: ["plist", "get", "FILE", "CFBundleIcons:CFBundlePrimaryIcon"]),
        BadInput(
            category: "Key paths", what: "an array index past the end", file: "Info.plist",
            contents: text("<plist><dict><key>A</key><array><string>x</string></array></dict></plist>"),
            arguments: ["plist", "set", "FILE", "A:3", "y"]),
        // Environments
        BadInput(
            category: "Environments", what: "inheriting an environment that does not exist", file: "envs/Staging.plist",
            contents: text("<plist><dict><key>Inherits</key><string>Nowhere</string></dict></plist>"),
            arguments: ["env", "show", "Staging", "--environments", "envs"]),
        BadInput(
            category: "Environments", what: "a $(VARIABLE) nobody defines", file: "envs/Staging.plist",
            contents: text(
                "<plist><dict><key>Info</key><dict><key>CFBundleDisplayName</key><string>$(NOPE)</string></dict></dict></plist>"),
            arguments: ["env", "show", "Staging", "--environments", "envs"]),
        BadInput(
            category: "Environments", what: "a secret's $(NAME), even when it is set", file: "envs/Staging.plist",
            contents: text(
                "<plist><dict><key>Distribution</key><dict><key>Title</key><string>$(ADHOCBUILD_SIGN_PASSWORD)</string></dict></dict></plist>"
            ),
            arguments: ["env", "show", "Staging", "--environments", "envs"], environment: ["ADHOCBUILD_SIGN_PASSWORD": "hunter2"]),
        BadInput(
            category: "Environments", what: "a process variable that is set but not allowed", file: "envs/Staging.plist",
            contents: text("<plist><dict><key>Settings</key><dict><key>Host</key><string>$(DEPLOY_HOST)</string></dict></dict></plist>"),
            arguments: ["env", "show", "Staging", "--environments", "envs"], environment: ["DEPLOY_HOST": "deploy.example.com"]),
        BadInput(
            category: "Environments", what: "variables that refer to each other", file: "envs/Staging.plist",
            contents: text(
                "<plist><dict><key>Variables</key><dict><key>A</key><string>$(B)</string><key>B</key><string>$(A)</string></dict><key>Info</key><dict><key>X</key><string>$(A)</string></dict></dict></plist>"
            ),
            arguments: ["env", "show", "Staging", "--environments", "envs"]),
        BadInput(
            category: "Environments", what: "an extension whose id is not under the app's, when the app's changes",
            file: "A.app/PlugIns/B.appex/Info.plist",
            contents: text("<plist><dict><key>CFBundleIdentifier</key><string>com.other.b</string></dict></plist>"),
            arguments: ["env", "apply", "Staging", "--app", "A.app", "--environments", "envs"],
            companions: [
                "A.app/Info.plist": text("<plist><dict><key>CFBundleIdentifier</key><string>com.example.a</string></dict></plist>"),
                "envs/Staging.plist": text(
                    "<plist><dict><key>Info</key><dict><key>CFBundleIdentifier</key><string>com.example.a.staging</string></dict></dict></plist>"
                )
            ]),
        // Versions
        BadInput(
            category: "Versions", what: "a build number that is not a version", file: "A.app/Info.plist",
            contents: text(
                "<plist><dict><key>CFBundleExecutable</key><string>A</string><key>CFBundleVersion</key><string>7</string></dict></plist>"),
            arguments: ["version", "bump", "build", "A.app", "--to", "1.2.x"]),
        // ipas
        BadInput(
            category: "ipa", what: "200 bytes cut from the middle", file: "A.ipa",
            contents: try {
                let z = try zip([("Payload/A.app/Info.plist", infoPlist), ("Payload/A.app/A", Data(repeating: 7, count: 5000))])
                return z.prefix(100) + z.dropFirst(300)
            }(),
            arguments: ["inspect", "FILE"]),
        BadInput(category: "ipa", what: "not a zip at all", file: "A.ipa", contents: text("just text"), arguments: ["inspect", "FILE"]),
        BadInput(
            category: "ipa", what: "truncated (the last 4 KB missing)", file: "A.ipa",
            contents: try zip([
                ("Payload/A.app/Info.plist", infoPlist),
                ("Payload/A.app/A", Data((0..<20000).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }))
            ]).dropLast(4096),
            arguments: ["inspect", "FILE"]),
        BadInput(
            category: "ipa", what: "an entry named ../../evil", file: "A.ipa",
            contents: try zip([("Payload/A.app/Info.plist", infoPlist), ("../../evil", text("x"))]), arguments: ["inspect", "FILE"]),
        BadInput(
            category: "ipa", what: "an absolute entry name", file: "A.ipa",
            contents: try zip([("Payload/A.app/Info.plist", infoPlist), ("/etc/cron.d/evil", text("x"))]), arguments: ["inspect", "FILE"]),
        BadInput(
            category: "ipa", what: "no Payload/*.app", file: "A.ipa",
            contents: try zip([("Something/Info.plist", infoPlist)]), arguments: ["inspect", "FILE"]),
        BadInput(
            category: "ipa", what: "two apps in Payload", file: "A.ipa",
            contents: try zip([("Payload/A.app/Info.plist", infoPlist), ("Payload/B.app/Info.plist", infoPlist)]),
            arguments: ["inspect", "FILE"]),
        BadInput(
            category: "ipa", what: "Info.plist and info.plist side by side", file: "A.ipa",
            contents: try zip([("Payload/A.app/Info.plist", infoPlist), ("Payload/A.app/info.plist", infoPlist)]),
            arguments: ["inspect", "FILE"]),
        BadInput(
            category: "ipa", what: "a zip bomb (200 MB of zeros)", file: "A.ipa",
            contents: try zip([("Payload/A.app/Info.plist", infoPlist)], ratioBomb: true), arguments: ["inspect", "FILE"]),
        BadInput(
            category: "ipa", what: "more entries than the limit", file: "A.ipa",
            contents: try zip([("Payload/A.app/Info.plist", infoPlist), ("Payload/A.app/A", text("x"))]),
            arguments: ["inspect", "FILE"], environment: ["ADHOCBUILD_MAX_IPA_ENTRIES": "1"]),
        // Provisioning profiles
        BadInput(
            category: "Provisioning profile", what: "not CMS (a plain plist)", file: "A.mobileprovision",
            contents: infoPlist, arguments: ["profile", "show", "FILE"]),
        BadInput(
            category: "Provisioning profile", what: "DER cut short", file: "A.mobileprovision",
            contents: Data([0x30, 0x82, 0x10, 0x00, 0x06, 0x09]), arguments: ["profile", "show", "FILE"]),
        // The testers' device list
        BadInput(
            category: "Device list", what: "a UDID of none of Apple's shapes", file: "devices.plist", contents: deviceStore(),
            arguments: ["devices", "add", "FILE", "--udid", "0000803-001A2D3C0E12802E", "--name", "Bo"]),
        BadInput(
            category: "Device list", what: "removing a device that is not listed", file: "devices.plist", contents: deviceStore(),
            arguments: ["devices", "remove", "FILE", "00008030-001A2D3C0E12802E", "00008030-0000000000000001"]),
        BadInput(
            category: "Device list", what: "a list written by a newer adhocbuild", file: "devices.plist",
            contents: deviceStore(version: 2), arguments: ["devices", "list", "FILE"]),
        BadInput(
            category: "Device list", what: "a UDID listed twice, in other cases", file: "devices.plist",
            contents: deviceStore(twice: true), arguments: ["devices", "export", "FILE", "--format", "tsv"]),
        BadInput(
            category: "Device list", what: "a portal file with a line that is no UDID", file: "register-devices.txt",
            contents: text("Device ID\tDevice Name\tDevice Platform\n00008030-001A2D3C0E12802E\tAna\tios\nAna's iPad\tios\n"),
            arguments: ["devices", "import", "devices.plist", "FILE"]),
        // Enrollment
        BadInput(
            category: "Enrollment", what: "an enrollment key of the wrong size", file: "enroll.key",
            contents: Data(repeating: 7, count: 10),
            arguments: ["devices", "enroll-page", "--url", "https://builds.example.com/enroll/", "--key", "FILE", "-o", "page"]),
        BadInput(
            category: "Enrollment", what: "making a key where one is", file: "enroll.key", contents: Data(repeating: 7, count: 32),
            arguments: ["devices", "key", "-o", "FILE"]),
        // Settings
        BadInput(
            category: "Settings", what: "a limit that is not a number", file: "Info.plist", contents: infoPlist,
            arguments: ["plist", "print", "FILE"], environment: ["ADHOCBUILD_MAX_PLIST_DEPTH": "lots"])
    ]

    /// Issue 31's classes of hostile builds and files, one bad input each where the answer is an error
    /// (the README's "Hostile builds and files" says what each class gets).
    static let hostileCatalogue: [BadInput] = [
        BadInput(
            category: "Writes outside", what: "an Info.plist that is a link out of the app", file: "outside.plist",
            contents: infoPlist, arguments: ["env", "apply", "Staging", "--app", "A.app", "--environments", "envs"],
            companions: ["envs/Staging.plist": stagingEnvironment], links: ["A.app/Info.plist": "../outside.plist"]),
        BadInput(
            category: "Hangs and limits", what: "variables that each use the previous one four times", file: "envs/Staging.plist",
            contents: text(
                "<plist><dict><key>Variables</key><dict>"
                    + (0..<11).map {
                        "<key>V\($0)</key><string>\($0 == 0 ? "xxxx" : String(repeating: "$(V\($0 - 1))", count: 4))</string>"
                    }
                    .joined() + "</dict><key>Settings</key><dict><key>A</key><string>$(V10)</string></dict></dict></plist>"),
            arguments: ["env", "show", "Staging", "--environments", "envs"]),
        BadInput(
            category: "Crashes", what: "a nesting limit above what the stack holds", file: "Info.plist", contents: infoPlist,
            arguments: ["plist", "print", "FILE"], environment: ["ADHOCBUILD_MAX_PLIST_DEPTH": "100000"]),
        BadInput(
            category: "Crashes", what: "a key path deeper than the readers allow", file: "Info.plist", contents: infoPlist,
            arguments: ["plist", "set", "FILE", "a:b:c:d", "x"], environment: ["ADHOCBUILD_MAX_PLIST_DEPTH": "3"]),
        BadInput(
            category: "Unbounded reads", what: "an endless file", file: "Info.plist", contents: infoPlist,
            arguments: ["plist", "print", "/dev/zero"], environment: ["ADHOCBUILD_MAX_PLIST_SIZE": "1M"]),
        halfDone("DIST's latest a folder, not the link adhocbuild keeps", in: "dist/Staging/latest/keep.txt"),
        halfDone("DIST's index.html a folder", in: "dist/index.html/keep.txt"),
        halfDone("the environment's folder in DIST a file", in: "dist/Staging"),
        BadInput(
            category: "Accepted bad archives", what: "a local header naming another entry than the central directory", file: "A.ipa",
            contents: try replacingFirst(
                "Payload/A.app/Info.plist", with: "Payload/A.app/../../evil",
                in: try zip([("Payload/A.app/Info.plist", infoPlist), ("Payload/A.app/A", text("x"))])),
            arguments: ["inspect", "FILE"]),
        BadInput(
            category: "Messages", what: "DIST inside the app", file: "A.app/Info.plist", contents: infoPlist,
            arguments: [
                "release", "-q", "--env", "Staging", "--app", "A.app", "--out", "A.app/dist", "--base-url", "https://x.example/",
                "--environments", "envs"
            ],
            companions: ["envs/Staging.plist": stagingEnvironment]),
        BadInput(
            category: "Messages", what: "an ipa written inside the app", file: "A.app/Info.plist", contents: infoPlist,
            arguments: ["package", "A.app", "-o", "A.app/out.ipa"]),
        BadInput(
            category: "Messages", what: "text its declared encoding cannot convert (libxml2 printed lines of its own)",
            file: "Info.plist",
            contents: Data("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?>\n<plist><string>".utf8) + Data([0x81, 0xFF, 0x82])
                + text("</string></plist>"),
            arguments: ["plist", "print", "FILE"])
    ]

    /// A release into `dist` that finds `file` there, which makes `dist` a state it must not change.
    static func halfDone(_ what: String, in file: String) -> BadInput {
        BadInput(
            category: "Half-done states", what: what, file: "A.app/Info.plist", contents: infoPlist,
            arguments: [
                "release", "-q", "--env", "Staging", "--app", "A.app", "--out", "dist", "--base-url", "https://x.example/",
                "--environments", "envs"
            ],
            companions: ["envs/Staging.plist": stagingEnvironment, file: text("kept")])
    }

    /// A device list holding one device (or the same twice, the second in lower case).
    static func deviceStore(version: Int = 1, twice: Bool = false) -> Data {
        func device(_ udid: String) -> String {
            "<dict><key>UDID</key><string>\(udid)</string><key>Name</key><string>Ana</string>"
                + "<key>Added</key><date>2026-01-01T00:00:00Z</date><key>Updated</key><date>2026-01-01T00:00:00Z</date>"
                + "<key>AddedBy</key><string>ana</string><key>Source</key><string>manual</string></dict>"
        }
        let devices = device("00008030-001A2D3C0E12802E") + (twice ? device("00008030-001a2d3c0e12802e") : "")
        return text(
            "<plist><dict><key>Version</key><integer>\(version)</integer><key>Devices</key><array>\(devices)</array></dict></plist>")
    }

    static let stagingEnvironment = text(
        "<plist><dict><key>Info</key><dict><key>CFBundleDisplayName</key><string>S</string></dict></dict></plist>")

    /// `data` with the first occurrence of `old` (as UTF-8) replaced by `new`, which is as long.
    static func replacingFirst(_ old: String, with new: String, in data: Data) throws -> Data {
        guard let range = data.range(of: Data(old.utf8)) else { throw SetupFailure("'\(old)' is not in the archive") }
        var copy = data
        copy.replaceSubrange(range, with: Data(new.utf8))
        return copy
    }

    /// Runs one bad input in a fresh folder and returns its first line of standard error, with the
    /// folder's path taken out, after checking the exit status and that no file was added or changed.
    static func run(_ input: BadInput) throws -> (status: Int32, error: String) {
        return try withTemporaryFolder { folder in
            let path = try folder.create(input.file, try input.contents())
            for (name, data) in input.companions { try folder.create(name, data) }
            for (name, target) in input.links {
                try FileManager.default.createDirectory(
                    atPath: (folder.path(name) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(atPath: folder.path(name), withDestinationPath: target)
            }
            let before = folder.snapshot()
            let arguments = input.arguments.map { argument in
                if argument == "FILE" { return path }
                let inFolder = argument == "envs" || argument == "dist" || argument == "A.app" || argument.hasPrefix("A.app/")
                return inFolder ? folder.path(argument) : argument
            }
            let result = try AdhocBuildBinary.run(arguments, extraEnvironment: input.environment)
            #expect(folder.snapshot() == before, "\(input.what): a failed command changed or added files")
            #expect(result.stdoutText.isEmpty, "\(input.what): printed \(result.stdoutText)")
            let first = result.stderrText.split(separator: "\n").first.map(String.init) ?? ""
            return (result.status, first.replacingOccurrences(of: folder.url.path + "/", with: ""))
        }
    }

    /// The command as the README's table shows it: variables, `adhocbuild`, arguments with the file's name.
    static func commandText(_ input: BadInput) -> String {
        let command = (["adhocbuild"] + input.arguments.map { $0 == "FILE" ? input.file : $0 }).joined(separator: " ")
        return input.environment.map { "\($0.key)=\($0.value) " }.joined() + command
    }

    static func table(_ rows: [(BadInput, Int32, String)]) -> String {
        var categories: [(String, Int)] = []
        for (input, _, _) in rows {
            if let index = categories.firstIndex(where: { $0.0 == input.category }) {
                categories[index].1 += 1
            } else {
                categories.append((input.category, 1))
            }
        }
        var lines = [
            "\(rows.count) bad inputs in \(categories.count) categories: "
                + categories.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + ".", "",
            "| category | bad input | command | exit | error |", "| --- | --- | --- | --- | --- |"
        ]
        for (input, status, error) in rows {
            func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
            let what = cell(input.what).replacingOccurrences(of: "<", with: "&lt;")
            lines.append("| \(input.category) | \(what) | `\(cell(commandText(input)))` | \(status) | `\(cell(error))` |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static let beginMarker = "<!-- bad-input-table: generated by Tests/adhocbuildTests/BadInputCatalogTests.swift -->\n"
    static let endMarker = "<!-- end of bad-input-table -->"

    @Test func everyBadInputGetsOneErrorLineANonZeroExitAndTheREADMETableSaysSo() throws {
        var rows: [(BadInput, Int32, String)] = []
        for input in Self.catalogue {
            let (status, error) = try Self.run(input)
            #expect(status != 0, "\(input.what): exit status 0")
            #expect(error.hasPrefix("error: "), "\(input.what): \(error)")
            #expect(!error.contains("Fatal error") && !error.contains("Stack dump"), "\(input.what): \(error)")
            rows.append((input, status, error))
        }
        let table = Self.table(rows)
        let readmeURL = Fixtures.packageRoot.appendingPathComponent("README.md")
        let readme = try String(contentsOf: readmeURL, encoding: .utf8)
        guard let begin = readme.range(of: Self.beginMarker), let end = readme.range(of: Self.endMarker) else {
            Issue.record("README.md has no bad-input table markers")
            return
        }
        let current = String(readme[begin.upperBound..<end.lowerBound])
        if ProcessInfo.processInfo.environment["ADHOCBUILD_RECORD_SNAPSHOTS"] == "1" {
            try Data((readme[..<begin.upperBound] + table + readme[end.lowerBound...]).utf8).write(to: readmeURL)
            return
        }
        #expect(current == table, "README's bad-input table is out of date; rerun with ADHOCBUILD_RECORD_SNAPSHOTS=1:\n\(table)")
    }
}

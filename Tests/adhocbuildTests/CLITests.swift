import Foundation
import PlistKit
import TestSupport
import Testing

/// The executable as a user meets it: help, exit codes, errors on one line, standard streams.
@Suite struct CLITests {
    static let snapshots = Fixtures.packageRoot.appendingPathComponent("Tests/adhocbuildTests/Snapshots")

    /// Compares with a golden file; `ADHOCBUILD_RECORD_SNAPSHOTS=1` rewrites it instead.
    func assertSnapshot(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = Self.snapshots.appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["ADHOCBUILD_RECORD_SNAPSHOTS"] == "1" {
            try Data(actual.utf8).write(to: url)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(
            actual == expected, "snapshot \(name) differs; rerun with ADHOCBUILD_RECORD_SNAPSHOTS=1 if intended",
            sourceLocation: sourceLocation)
    }

    @Test(arguments: [
        (["--help"], "help"), (["help", "plist"], "help-plist"), (["plist", "set", "--help"], "help-plist-set"),
        (["plist", "merge", "-h"], "help-plist-merge"),
        (["devices", "receive", "--help"], "help-devices-receive")
    ])
    func helpMatchesItsSnapshot(arguments: [String], name: String) throws {
        let result = try AdhocBuildBinary.run(arguments)
        #expect(result.status == 0)
        #expect(result.stderrText == "")
        try assertSnapshot(result.stdoutText, name)
    }

    /// `AdhocBuildBinary.run(in:)` runs the tool in that folder, so relative paths are the user's.
    @Test func relativePathsAreReadFromTheFolderTheToolRunsIn() throws {
        try withTemporaryFolder { folder in
            _ = try folder.write("Info.plist", "<plist><dict><key>CFBundleVersion</key><string>7</string></dict></plist>")
            let result = try AdhocBuildBinary.run(["plist", "get", "Info.plist", "CFBundleVersion"], in: folder.url.path)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText == "7\n")
        }
    }

    @Test func versionPrintsOneLine() throws {
        let result = try AdhocBuildBinary.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdoutText.hasPrefix("adhocbuild ") && result.stdoutText.split(separator: "\n").count == 1)
    }

    @Test func aMistypedSubcommandExitsTwoWithASuggestionAndTheUsage() throws {
        let result = try AdhocBuildBinary.run(["plist", "conver", "x.plist"])
        #expect(result.status == 2)
        #expect(result.stdoutText == "")
        #expect(
            result.stderrText == """
                error: unknown command 'conver'; did you mean 'convert'?
                Usage: adhocbuild plist <command>
                See 'adhocbuild plist --help'.

                """)
    }

    @Test func aMistypedOptionExitsTwoWithASuggestion() throws {
        let result = try AdhocBuildBinary.run(["plist", "convert", "x.plist", "--too", "xml"])
        #expect(result.status == 2)
        #expect(
            result.stderrText.hasPrefix(
                "error: unknown option '--too'; did you mean '--to'?\nUsage: adhocbuild plist convert FILE --to FORMAT [options]\n"))
    }

    @Test func aMissingArgumentOrValueIsAUsageError() throws {
        let missing = try AdhocBuildBinary.run(["plist", "get", "x.plist"])
        #expect(missing.status == 2)
        #expect(missing.stderrText.hasPrefix("error: missing KEYPATH\n"))
        let noValue = try AdhocBuildBinary.run(["plist", "convert", "x.plist", "--to"])
        #expect(noValue.status == 2)
        #expect(noValue.stderrText.hasPrefix("error: option '--to' needs a value (FORMAT)\n"))
        let badFormat = try AdhocBuildBinary.run(["plist", "convert", "x.plist", "--to", "yaml"])
        #expect(badFormat.status == 2)
        #expect(badFormat.stderrText.hasPrefix("error: unknown format 'yaml'; use xml, binary or json\n"))
    }

    @Test func aBadFileFailsWithOneLineNamingItAndExitOne() throws {
        try withTemporaryFolder { folder in
            let path = try folder.write("Bad.plist", "<plist><dict><key>a</key><integer>x</integer></dict></plist>")
            let result = try AdhocBuildBinary.run(["plist", "print", path])
            #expect(result.status == 1)
            #expect(result.stdoutText == "")
            #expect(result.stderrText == "error: \(path): 1:46: 'x' is not an integer from -2^63 to 2^64-1\n")
        }
    }

    /// A write that fails part way through a streamed conversion (here: past the file-size limit)
    /// is one line naming the output file, and leaves no temporary file behind.
    @Test func aFailedWriteOfAStreamedConversionNamesTheOutputFile() throws {
        try withTemporaryFolder { folder in
            let strings = (0..<20_000).map { PlistValue.string("entry \($0)") }
            let input = try folder.create("big.plist", try PropertyList.encode(.array(strings), format: .binary))
            let output = folder.path("big.xml")
            // SIGXFSZ ignored, so a write past `ulimit -f` fails with EFBIG instead of killing the tool.
            let limited = "trap '' XFSZ; ulimit -f 64; exec \"$0\" \"$@\""
            let result = try ProcessResult.run(
                "/bin/sh", ["-c", limited, AdhocBuildBinary.path, "plist", "convert", input, "--to", "xml", "-o", output])
            #expect(result.status == 1)
            #expect(result.stderrText == "error: \(output): cannot be written: File too large\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["big.plist"])
        }
    }

    /// A full disk (or a closed pipe with SIGPIPE ignored) behind standard output is one line and
    /// status 1, not a trap with a stack trace.
    @Test func aFailedWriteToStandardOutputIsOneLineAndExitOne() throws {
        try withTemporaryFolder { folder in
            let input = try folder.write("a.plist", "<plist><dict><key>a</key><string>x</string></dict></plist>")
            for arguments in [
                ["plist", "print", input], ["plist", "get", input, "a"], ["plist", "convert", input, "--to", "xml", "-o", "-"]
            ] {
                let result = try ProcessResult.run("/bin/sh", ["-c", "exec \"$0\" \"$@\" > /dev/full", AdhocBuildBinary.path] + arguments)
                #expect(result.status == 1, "\(arguments)")
                #expect(result.stderrText == "error: standard output: cannot be written: No space left on device\n", "\(arguments)")
            }
        }
    }

    /// `-o` into a link writes the file it names; into a FIFO (or /dev/null), writes into it: a
    /// rename over either would swap it for a plain file.
    @Test func anOutputThatIsALinkOrAFIFOIsWrittenIntoNotReplaced() throws {
        try withTemporaryFolder { folder in
            let input = try folder.write("a.plist", "<plist><dict><key>a</key><string>x</string></dict></plist>")
            #expect(symlink("a.plist", folder.path("link.plist")) == 0)
            let set = try AdhocBuildBinary.run(["plist", "set", folder.path("link.plist"), "a", "changed"])
            #expect(set.status == 0, "\(set.stderrText)")
            #expect(try AdhocBuildBinary.run(["plist", "get", input, "a"]).stdoutText == "changed\n")
            var info = stat()
            #expect(lstat(folder.path("link.plist"), &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
            let fifo = folder.path("pipe")
            #expect(mkfifo(fifo, 0o600) == 0)
            let reader = try ProcessResult.run(
                "/bin/sh", ["-c", "\"$0\" plist convert \"$1\" --to json -o \"$2\" & cat \"$2\"; wait", AdhocBuildBinary.path, input, fifo])
            #expect(reader.status == 0)
            #expect(reader.stdoutText == "{\n  \"a\": \"changed\"\n}\n", "\(reader.stdoutText)")
            #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        }
    }

    /// What the output format cannot hold names the output, standard output by that name (it was '-').
    @Test func aValueTheOutputCannotHoldNamesStandardOutputByName() throws {
        try withTemporaryFolder { folder in
            let input = try folder.write(
                "inf.xml", "<plist><dict><key>b</key><array><real>1</real><real>+infinity</real></array></dict></plist>")
            let result = try AdhocBuildBinary.run(["plist", "convert", input, "--to", "json", "-o", "-"])
            #expect(result.status == 1)
            #expect(result.stderrText == "error: standard output: at 'b:1': JSON cannot hold +infinity\n")
        }
    }

    @Test func standardInputAndOutputWorkWithADash() throws {
        let input = Data(#"{"name": "ShoutOut", "build": 7}"#.utf8)
        let result = try AdhocBuildBinary.run(["plist", "convert", "-", "--to", "xml", "-o", "-"], input: input)
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("<key>build</key>\n\t<integer>7</integer>"))
        let binary = try AdhocBuildBinary.run(["plist", "convert", "-", "--to", "binary", "-o", "-"], input: input)
        #expect(binary.stdout.starts(with: Array("bplist00".utf8)))
        let back = try AdhocBuildBinary.run(["plist", "get", "-", "name"], input: binary.stdout)
        #expect(back.stdoutText == "ShoutOut\n")
    }

    @Test func setThenGetThroughTheCommandLine() throws {
        try withTemporaryFolder { folder in
            let path = try folder.write("Info.plist", "<plist><dict/></plist>")
            #expect(try AdhocBuildBinary.run(["plist", "set", path, "A:B", "7", "--type", "integer"]).status == 0)
            #expect(try AdhocBuildBinary.run(["plist", "get", path, "A:B"]).stdoutText == "7\n")
            #expect(try AdhocBuildBinary.run(["plist", "get", path, "A", "--format", "json"]).stdoutText == "{\n  \"B\": 7\n}\n")
            let wrongType = try AdhocBuildBinary.run(["plist", "set", path, "A:B", "7", "--type", "integr"])
            #expect(wrongType.status == 2)
            #expect(wrongType.stderrText.hasPrefix("error: unknown type 'integr'; did you mean 'integer'?"))
        }
    }

    @Test func deleteRemovesAKeyAndReportsAMissingOne() throws {
        try withTemporaryFolder { folder in
            let path = try folder.write("Info.plist", "<plist><dict><key>A</key><true/><key>B</key><false/></dict></plist>")
            #expect(try AdhocBuildBinary.run(["plist", "delete", path, "A"]).status == 0)
            #expect(try AdhocBuildBinary.run(["plist", "print", path, "--format", "json"]).stdoutText == "{\n  \"B\": false\n}\n")
            let missing = try AdhocBuildBinary.run(["plist", "delete", path, "A"])
            #expect(missing.status == 1)
            #expect(missing.stderrText == "error: \(path): at the root: no key 'A'\n")
        }
    }

    @Test func lintExitsOneWhenAnyFileFails() throws {
        try withTemporaryFolder { folder in
            let good = try folder.write("good.plist", "<plist><true/></plist>")
            let bad = try folder.write("bad.plist", "bplist00")
            let result = try AdhocBuildBinary.run(["plist", "lint", good, bad])
            #expect(result.status == 1)
            #expect(result.stdoutText == "\(good): OK (xml)\n\(bad): byte 8: truncated: 8 bytes is too short for a binary plist\n")
            #expect(try AdhocBuildBinary.run(["plist", "lint", "-q", good]).stdoutText == "")
        }
    }

    @Test func mergeExplainPrintsWhereEachValueCameFrom() throws {
        try withTemporaryFolder { folder in
            let base = try folder.write("Base.plist", #"{"API": {"URL": "https://dev", "Retry": 2}}"#)
            let over = try folder.write("Release.plist", #"{"API": {"URL": "https://prod"}}"#)
            let out = folder.path("out.plist")
            let result = try AdhocBuildBinary.run(["plist", "merge", base, over, "-o", out, "--explain", "--to", "xml"])
            #expect(result.status == 0)
            #expect(result.stdoutText == "API:URL = \"https://prod\"  (\(over))\nAPI:Retry = 2  (\(base))\n")
            #expect(try String(contentsOfFile: out, encoding: .utf8).contains("<string>https://prod</string>"))
        }
    }
}

/// Options checked where they are declared: a bad or missing value is a usage error (exit 2, usage line).
@Suite struct TypedOptionsCLITests {
    @Test func aMalformedSetIsAUsageErrorWithTheUsageLine() throws {
        let result = try AdhocBuildBinary.run(["env", "show", "Staging", "--set", "foo"])
        #expect(result.status == 2)
        #expect(result.stderrText.hasPrefix("error: --set takes KEYPATH=VALUE, not 'foo'\nUsage: adhocbuild env show NAME [options]\n"))
    }

    @Test func packageShowsAndRequiresItsOutput() throws {
        let result = try AdhocBuildBinary.run(["package", "A.app"])
        #expect(result.status == 2)
        #expect(result.stderrText.hasPrefix("error: missing -o OUT.ipa\nUsage: adhocbuild package APP -o OUT.ipa [options]\n"))
    }

    @Test func pageChecksItsBundleVersionBeforeReadingTheIpa() throws {
        let result = try AdhocBuildBinary.run([
            "page", "missing.ipa", "--base-url", "https://b.example/", "-o", "x",
            "--bundle-version", "major"
        ])
        #expect(result.status == 2)
        #expect(result.stderrText.hasPrefix("error: unknown bundle version 'major'; use short or build\n"))
    }

    @Test func aNegativeNumberIsAValue() throws {
        try withTemporaryFolder { folder in
            let path = try folder.write("Info.plist", "<plist><dict/></plist>")
            let set = try AdhocBuildBinary.run(["plist", "set", path, "Offset", "-5", "--type", "integer"])
            #expect(set.status == 0, "\(set.stderrText)")
            #expect(try AdhocBuildBinary.run(["plist", "get", path, "Offset"]).stdoutText == "-5\n")
        }
    }
}

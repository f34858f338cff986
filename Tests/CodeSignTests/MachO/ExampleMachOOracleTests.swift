import CodeSign
import Foundation
import TestSupport
import Testing

/// The example app's Mach-O files (written by examples/ShoutOut/make-app.py) read by LIEF, a reader
/// nobody here wrote: they parse without a warning, pass LIEF's layout check, hold the commands and
/// segments make-app.py means them to, leave room for a signer, and agree with our own reader. The
/// app is written afresh with its share extension (which the committed app leaves out); the committed
/// files are the same bytes.
@Suite struct ExampleMachOOracleTests {
    static let example = Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut")
    static let files = ["ShoutOut", "PlugIns/ShoutOutShare.appex/ShoutOutShare", "Frameworks/ShoutKit.framework/ShoutKit"]

    /// Writes the example app with its share extension into `folder`.
    static func appWithExtension(in folder: TemporaryFolder) throws -> String {
        let python = try #require(ProcessResult.which("python3"), "python3 is needed to write the example app")
        let app = folder.path("ShoutOut.app")
        let script = example.appendingPathComponent("make-app.py").path
        let made = try ProcessResult.run(python, [script, "--with-share-extension", app])
        guard made.status == 0 else { throw SetupFailure("make-app.py failed: \(made.stderrText)") }
        return app
    }

    @Test func theCommittedAppIsWhatMakeAppWritesAndItsExtensionIsUnsignedMachOToo() throws {
        try withTemporaryFolder { folder in
            let app = try Self.appWithExtension(in: folder)
            for file in ["ShoutOut", "Info.plist", "Frameworks/ShoutKit.framework/ShoutKit"] {
                let committed = try Data(contentsOf: Self.example.appendingPathComponent("ShoutOut.app/" + file))
                #expect(try Data(contentsOf: URL(fileURLWithPath: app + "/" + file)) == committed, "\(file): run make-app.py")
            }
            let report = try CodeSealVerifier().verify(path: app)
            #expect(
                report.items.map(\.path) == [
                    "ShoutOut.app/Frameworks/ShoutKit.framework", "ShoutOut.app/PlugIns/ShoutOutShare.appex", "ShoutOut.app"
                ])
            #expect(report.items.map(\.status) == [.unsigned, .unsigned, .unsigned])
            #expect(report.problems.allSatisfy { $0.description.hasSuffix(": code object is not signed at all") }, "\(report.problems)")
        }
    }

    /// Whether python3 imports LIEF (`make deps` installs it).
    static let liefIsInstalled: Bool = {
        guard let python = ProcessResult.which("python3") else { return false }
        return (try? ProcessResult.run(python, ["-c", "import lief"]).status) == 0
    }()

    /// Prints one JSON object per file named on the command line, as LIEF reads it.
    static let script = """
        import json, sys, lief
        lief.logging.set_level(lief.logging.LEVEL.WARN)
        out = []
        for path in sys.argv[1:]:
            fat = lief.MachO.parse(path)
            b = fat.at(0)
            layout_ok, layout_error = lief.MachO.check_layout(b)
            out.append({
                "slices": fat.size, "filetype": b.header.file_type.name, "cpu": b.header.cpu_type.name,
                "flags": [f.name for f in b.header.flags_list],
                "commands": [[c.command.name, c.size] for c in b.commands],
                "segments": [[s.name, s.file_offset, s.file_size, s.virtual_address, s.virtual_size] for s in b.segments],
                "sections": [[s.segment_name, s.name, s.offset, s.size] for s in b.sections],
                "build": [b.build_version.platform.name, b.build_version.minos, b.build_version.sdk],
                "libraries": [l.name for l in b.libraries],
                "dylinker": b.dylinker.name if b.has_dylinker else None,
                "entry": b.main_command.entrypoint if b.has_main_command else None,
                "exports": sorted(s.name for s in b.exported_symbols),
                "uuid": bytes(b.uuid.uuid).hex() if b.has_uuid else None,
                "signed": b.has_code_signature, "free": b.available_command_space,
                "layout": [layout_ok, layout_error]})
        print(json.dumps(out))
        """

    struct Reading: Decodable {
        var slices: Int, filetype: String, cpu: String, flags: [String]
        var commands: [[Value]], segments: [[Value]], sections: [[Value]], build: [Value]
        var libraries: [String], dylinker: String?, entry: UInt64?, exports: [String], uuid: String?
        var signed: Bool, free: UInt64, layout: [Value]
    }

    /// A JSON scalar or list in LIEF's answer.
    enum Value: Decodable, Equatable, CustomStringConvertible {
        case text(String)
        case number(UInt64)
        case flag(Bool)
        case list([Value])
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) {
                self = .flag(flag)
            } else if let number = try? container.decode(UInt64.self) {
                self = .number(number)
            } else if let text = try? container.decode(String.self) {
                self = .text(text)
            } else {
                self = .list(try container.decode([Value].self))
            }
        }
        var description: String {
            switch self {
            case .text(let text): text
            case .number(let number): String(number)
            case .flag(let flag): String(flag)
            case .list(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
            }
        }
    }

    @Test(
        .enabled(
            if: liefIsInstalled || Fixtures.isRequired,
            "LIEF is not installed for python3 (make deps installs it); ADHOCBUILD_REQUIRE_FIXTURES=1 makes this a failure"))
    func liefReadsTheExampleMachOFilesAsMakeAppMeansThem() throws {
        let python = try #require(ProcessResult.which("python3"), "python3 is needed for the Mach-O oracle")
        try withTemporaryFolder { folder in
            let app = try Self.appWithExtension(in: folder)
            try check(python: python, paths: Self.files.map { app + "/" + $0 })
        }
    }

    func check(python: String, paths: [String]) throws {
        let run = try ProcessResult.run(python, ["-c", Self.script] + paths)
        try #require(run.status == 0, "LIEF failed: \(run.stderrText)")
        // LIEF logs what it finds wrong while parsing; it has nothing to say about these files.
        #expect(run.stderrText == "", "LIEF warned: \(run.stderrText)")
        let readings = try JSONDecoder().decode([Reading].self, from: run.stdout)
        try #require(readings.count == paths.count)

        for (path, reading) in zip(paths, readings) {
            let name = URL(fileURLWithPath: path).lastPathComponent
            let dylib = name == "ShoutKit"
            #expect(reading.layout == [.flag(true), .text("")], "\(name): LIEF's layout check")
            #expect(reading.slices == 1 && reading.cpu == "ARM64", "\(name)")
            #expect(reading.filetype == (dylib ? "DYLIB" : "EXECUTE"), "\(name)")
            #expect(reading.flags.contains(dylib ? "NO_REEXPORTED_DYLIBS" : "PIE"), "\(name): \(reading.flags)")
            let commands = reading.commands.map { $0.first?.description ?? "" }
            let expected =
                (dylib ? [] : ["SEGMENT_64"]) + ["SEGMENT_64", "SEGMENT_64"] + (dylib ? ["ID_DYLIB"] : [])
                + ["DYLD_CHAINED_FIXUPS", "DYLD_EXPORTS_TRIE", "SYMTAB", "DYSYMTAB"] + (dylib ? [] : ["LOAD_DYLINKER"])
                + ["UUID", "BUILD_VERSION", "SOURCE_VERSION"] + (dylib ? [] : ["MAIN"])
                + ["LOAD_DYLIB", "FUNCTION_STARTS", "DATA_IN_CODE"]
            #expect(commands == expected, "\(name): load commands")
            let segments = reading.segments.map { $0.first?.description ?? "" }
            #expect(segments == (dylib ? [] : ["__PAGEZERO"]) + ["__TEXT", "__LINKEDIT"], "\(name): segments")
            #expect(reading.sections.map { $0.prefix(2).map(\.description) } == [["__TEXT", "__text"]], "\(name): sections")
            #expect(reading.build == [.text("IOS"), .list([15, 0, 0].map(Value.number)), .list([17, 0, 0].map(Value.number))])
            #expect(
                reading.libraries
                    == (dylib ? ["@rpath/ShoutKit.framework/ShoutKit"] : []) + ["/usr/lib/libSystem.B.dylib"], "\(name): dylibs")
            #expect(reading.dylinker == (dylib ? nil : "/usr/lib/dyld"), "\(name)")
            #expect(reading.exports == (dylib ? ["_ShoutKitVersion"] : ["__mh_execute_header", "_main"]), "\(name): exports")
            #expect(reading.uuid?.count == 32, "\(name): LC_UUID")
            // Unsigned, with room after the load commands for the LC_CODE_SIGNATURE a signer adds.
            #expect(!reading.signed && reading.free >= 32, "\(name): \(reading.free) bytes free after the load commands")

            // __LINKEDIT is last and the file ends where it ends; the entry point is __text's start.
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64)
            let linkedit = try #require(reading.segments.last)
            #expect(linkedit.first == .text("__LINKEDIT"))
            if case .number(let offset) = linkedit[1], case .number(let length) = linkedit[2] {
                #expect(offset + length == size, "\(name): the file does not end where __LINKEDIT ends")
            }
            if let entry = reading.entry { #expect(reading.sections.first?[2] == .number(entry), "\(name): LC_MAIN") }

            // Our reader sees the same commands and segments.
            let file = try MachOFile(data: try Data(contentsOf: URL(fileURLWithPath: path)))
            let slice = try #require(file.slices.first)
            #expect(slice.loadCommands.map { UInt64($0.size) as UInt64? } == reading.commands.map { $0.last?.number }, "\(name)")
            let ours = slice.segments.map { s -> [Value] in
                [.text(s.name), .number(s.fileOffset), .number(s.fileSize), .number(s.vmAddress), .number(s.vmSize)]
            }
            #expect(ours == reading.segments, "\(name): our segments")
            #expect(slice.codeSignature == nil, "\(name)")
        }
    }
}

extension ExampleMachOOracleTests.Value {
    fileprivate var number: UInt64? { if case .number(let value) = self { value } else { nil } }
}

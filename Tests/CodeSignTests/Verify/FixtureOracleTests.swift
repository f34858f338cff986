import CodeSign
import Foundation
import TestSupport
import Testing

/// The fixtures read by tools nobody here wrote: LIEF (or struct) for the Mach-O layout, a separate
/// struct decoder for requirements and CodeDirectories, and `openssl cms -verify` for the CMS.
@Suite(Fixtures.enabled) struct FixtureOracleTests {
    static let oracle = Fixtures.packageRoot.appendingPathComponent("Tests/Oracles/macho_oracle.py").path

    struct OracleSlice: Decodable {
        struct Directory: Decodable {
            var slot: UInt32, version: UInt32, flags: UInt32, identifier: String, team: String?
            var hashType: UInt8, hashSize: Int, pageSize: UInt8, special: Int, code: Int, codeLimit: UInt32
        }
        var commands: [[UInt32]]
        var segments: [[Oracle]]
        var signature: [UInt32]?
        var designated: String?
        var directories: [Directory]?
    }

    /// A JSON scalar of the segment rows: a name or a number.
    enum Oracle: Decodable, Equatable {
        case text(String)
        case number(UInt64)
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(UInt64.self) {
                self = .number(number)
            } else {
                self = .text(try container.decode(String.self))
            }
        }
    }

    struct OracleOutput: Decodable {
        var backend: String
        var slices: [OracleSlice]
    }

    @Test func machOLayoutRequirementsAndDirectoriesAgreeWithTheOracle() throws {
        let python = try #require(ProcessResult.which("python3"), "python3 is needed for the Mach-O oracle")
        var backends: Set<String> = []
        try withTemporaryFolder { folder in
            for code in try FixtureCode.all() {
                let path = try folder.write("binary", code.bytes)
                let run = try ProcessResult.run(python, [FixtureOracleTests.oracle, path])
                try #require(run.status == 0, "oracle failed on \(code): \(run.stderrText)")
                let output = try JSONDecoder().decode(OracleOutput.self, from: run.stdout)
                backends.insert(output.backend)
                let file = try MachOFile(data: code.bytes)
                try #require(output.slices.count == file.slices.count, "\(code): slice count")
                for (slice, oracle) in zip(file.slices, output.slices) {
                    let place = "\(code) \(slice.cpu) (\(output.backend))"
                    #expect(slice.loadCommands.map { [$0.command, UInt32($0.size)] } == oracle.commands, "\(place): load commands")
                    let segments = slice.segments.map { s -> [Oracle] in
                        [.text(s.name), .number(s.fileOffset), .number(s.fileSize), .number(s.vmAddress), .number(s.vmSize)]
                    }
                    #expect(segments == oracle.segments, "\(place): segments")
                    #expect(slice.codeSignature.map { [$0.dataOffset, $0.dataSize] } == oracle.signature, "\(place): LC_CODE_SIGNATURE")
                    let signature = try #require(try slice.embeddedSignature())
                    #expect(signature.requirements?.designated?.description == oracle.designated, "\(place): designated requirement")
                    let directories = try #require(oracle.directories)
                    try #require(directories.count == signature.codeDirectories.count, "\(place): CodeDirectory count")
                    for (directory, expected) in zip(signature.codeDirectories, directories) {
                        #expect(directory.version == expected.version && directory.flags == expected.flags, "\(place): version, flags")
                        #expect(
                            directory.identifier == expected.identifier && directory.teamID == expected.team, "\(place): identifier, team")
                        #expect(
                            directory.hashType.rawValue == expected.hashType && directory.hashType.size == expected.hashSize, "\(place)")
                        #expect(directory.pageSizeLog2 == expected.pageSize && directory.codeLimit == expected.codeLimit, "\(place)")
                        #expect(directory.specialSlots.count == expected.special && directory.codeSlots.count == expected.code, "\(place)")
                    }
                }
            }
        }
        // LIEF when it is installed (`make deps` installs it), else the struct reading; CI, which
        // requires the fixtures, requires the oracle nobody here wrote too.
        #expect(backends.count == 1)
        if Fixtures.isRequired { #expect(backends == ["lief"], "LIEF is not installed for python3: run make deps") }
    }

    @Test func opensslVerifiesEveryCMSOverTheRewrittenCodeDirectoryAndRejectsAnother() throws {
        let openssl = try #require(ProcessResult.which("openssl"), "openssl is needed for the CMS oracle")
        var verified = 0, unsorted = 0
        try withTemporaryFolder { folder in
            for code in try FixtureCode.all() {
                for slice in try MachOFile(data: code.bytes).slices {
                    let signature = try #require(try slice.embeddedSignature())
                    let cms = try #require(signature.signature, "\(code): no CMS blob")
                    let directory = try #require(signature.codeDirectory)
                    let cmsPath = try folder.write("cms.der", Data(cms.cms))
                    let contentPath = try folder.write("cd.bin", Data(directory.bytes()))
                    let arguments = [
                        "cms", "-verify", "-binary", "-noverify", "-inform", "DER", "-in", cmsPath, "-content", contentPath, "-out",
                        "/dev/null"
                    ]
                    let good = try ProcessResult.run(openssl, arguments)
                    // openssl re-encodes the signed attributes before checking the signature, sorting the SET OF
                    // that Xcode 10–11's signer stored unsorted (SOURCES.md: the Permissions ipa), so it refuses
                    // those valid signatures; StoredSignedAttributesTests checks them over the stored bytes.
                    if code.ipa.contains("unsorted-agility") {
                        #expect(good.status != 0 && good.stderrText.contains("bad signature"), "\(code) \(slice.cpu)")
                        unsorted += 1
                        continue
                    }
                    #expect(good.status == 0, "\(code) \(slice.cpu): \(good.stderrText)")
                    var other = directory
                    other.flags ^= CodeDirectory.Flag.hard
                    _ = try folder.write("cd.bin", Data(other.bytes()))
                    let bad = try ProcessResult.run(openssl, arguments)
                    #expect(bad.status != 0, "\(code) \(slice.cpu): openssl accepted a CMS over other bytes")
                    if good.status == 0 { verified += 1 }
                }
            }
        }
        #expect(verified == 31)
        #expect(unsorted == 3)
    }
}

import CodeSign
import Foundation
import TestSupport
import Testing

/// The Info.plist a loose dylib embeds in `__TEXT,__info_plist`: read as LIEF reads it, bound by
/// special slot 1 of each slice's CodeDirectories (shown from Apple's signatures), and checked so by
/// verify, which names the slice when the section is changed.
@Suite(Fixtures.enabled) struct EmbeddedInfoPlistTests {
    /// Prints, for each file named, each slice's `__info_plist` section as LIEF reads it.
    static let script = """
        import json, sys, lief
        lief.logging.set_level(lief.logging.LEVEL.ERROR)
        out = []
        for path in sys.argv[1:]:
            slices = []
            fat = lief.MachO.parse(path)  # kept while its binaries are read
            for b in fat:
                s = b.get_section("__info_plist")
                slices.append(None if s is None else [s.segment_name, s.offset, s.size, bytes(s.content).hex()])
            out.append(slices)
        print(json.dumps(out))
        """

    /// A section as LIEF gives it (segment, offset, size and content in hex, or nil when none), in the
    /// JSON scalars the segment oracle reads.
    typealias Value = FixtureOracleTests.Oracle

    @Test(.enabled(if: ExampleMachOOracleTests.liefIsInstalled || Fixtures.isRequired, "LIEF is not installed for python3 (make deps)"))
    func everySliceSectionIsTheOneLIEFReads() throws {
        let python = try #require(ProcessResult.which("python3"))
        let codes = try FixtureCode.all()
        let readings: [[[Value]?]] = try withTemporaryFolder { folder in
            let paths = try codes.enumerated().map { try folder.write("code-\($0.offset)", $0.element.bytes) }
            let run = try ProcessResult.run(python, ["-c", Self.script] + paths)
            try #require(run.status == 0, "LIEF failed: \(run.stderrText)")
            return try JSONDecoder().decode([[[Value]?]].self, from: run.stdout)
        }
        try #require(readings.count == codes.count)
        var compared = 0
        var loose: Set<String> = []
        for (code, reading) in zip(codes, readings) {
            let file = try MachOFile(data: code.bytes)
            try #require(file.slices.count == reading.count, "\(code): slices")
            for (slice, lief) in zip(file.slices, reading) {
                let ours = try slice.infoPlistSection.map { section -> [Value] in
                    let bytes = try #require(try slice.embeddedInfoPlist(), "\(code) \(slice.cpu)")
                    let hex = bytes.map { String(format: "%02x", $0) }.joined()
                    return [.text(section.segmentName), .number(UInt64(section.fileOffset)), .number(section.size), .text(hex)]
                }
                #expect(ours == lief, "\(code) \(slice.cpu): the __info_plist section")
                if let lief, ours == lief, case .text(let hex) = lief[3], !hex.isEmpty {
                    compared += 1
                    if EmbeddedInfoPlist.isLoose(code) { loose.insert(code.entry) }
                }
            }
        }
        // The 9 libswift dylibs, each with an armv7 and an arm64 slice.
        #expect(compared >= 18)
        #expect(Set(EmbeddedInfoPlist.dylibs.map { "Payload/SimpleSaucyApp.app/" + $0 }).isSubset(of: loose))
    }

    /// Apple's signer put in slot 1 of each slice the hash of that slice's section; code without one
    /// leaves the slot empty.
    @Test func slotOneOfLooseCodeIsTheDigestOfItsSection() throws {
        var checked: Set<String> = []
        for code in try FixtureCode.all() where EmbeddedInfoPlist.isLoose(code) {
            for slice in try MachOFile(data: code.bytes).slices {
                let section = try slice.embeddedInfoPlist()
                let signature = try #require(try slice.embeddedSignature(), "\(code)")
                for directory in signature.codeDirectories {
                    let place = "\(code) \(slice.cpu) \(directory.hashType)"
                    let stored = directory.specialSlot(1)
                    if let section {
                        #expect(stored == Digest.hash(directory.hashType, section), "\(place): slot 1")
                        #expect(stored != Digest.hash(directory.hashType, try #require(code.bundleFile("Info.plist"))), "\(place)")
                        checked.insert("\(code.entry) \(slice.cpu)")
                    } else {
                        #expect(stored.map { $0.allSatisfy { $0 == 0 } } ?? true, "\(place): slot 1 without a section")
                    }
                }
            }
        }
        #expect(checked.count >= 18)
    }

    @Test func theLibswiftDylibsVerifyWithNoProblems() throws {
        let report = try CodeSealVerifier().verify(path: Fixtures.url("ipa", EmbeddedInfoPlist.ipa).path)
        let dylibs = report.items.filter { $0.path.hasSuffix(".dylib") }
        #expect(dylibs.map(\.path) == EmbeddedInfoPlist.dylibs.map { "Payload/SimpleSaucyApp.app/" + $0 })
        for item in dylibs {
            #expect(item.status == .signed, "\(item.path)")
            #expect(item.problems.map(\.description) == [], "\(item.path)")
        }
    }
}

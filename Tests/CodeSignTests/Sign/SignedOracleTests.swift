import CodeSign
import Foundation
import PlistKit
import TestSupport
import Testing

/// Every fixture re-signed with the test identities, read by tools nobody here wrote: `openssl cms
/// -verify` for each CMS over its slice's primary CodeDirectory, with the identity's chain; LIEF for
/// the rewritten Mach-O layout against the original's; Python's plistlib for CodeResources and the
/// entitlements blob.
@Suite(Fixtures.enabled) struct SignedOracleTests {
    static let layoutOracle = Fixtures.packageRoot.appendingPathComponent("Tests/Oracles/signed_layout_oracle.py").path

    /// The certificate `openssl` is told to trust for `identity`: its own, or the CA that issued it.
    static func anchor(of identity: SigningIdentity, _ made: TestIdentities) -> String {
        switch identity.file {
        case made.rsa: return made.folder.path("rsa.crt")
        case made.ec: return made.folder.path("ec.crt")
        default: return made.caPEM
        }
    }

    @Test func opensslVerifiesEveryCMSOverItsPrimaryCodeDirectoryWithTheIdentitysChain() throws {
        let openssl = try #require(ProcessResult.which("openssl"), "openssl is needed for the CMS oracle")
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            var verified = 0
            for fixture in try ResignedFixture.all(in: folder) {
                let anchor = Self.anchor(of: fixture.identity, made)
                let expected = Set([fixture.identity.certificate.der] + fixture.identity.chain.map(\.der))
                #expect(expected.count == (fixture.identity.file == made.leafWithCA ? 2 : 1), "\(fixture)")
                for relative in try ResignedFixture.machOFiles(fixture.app) {
                    for slice in try MachOFile(contentsOf: fixture.app + "/" + relative).slices {
                        let place = "\(fixture) \(relative) \(slice.cpu)"
                        let signature = try #require(try slice.embeddedSignature(), "\(place)")
                        let cms = try folder.write("cms.der", Data(try #require(signature.signature, "\(place)").cms))
                        var directory = try #require(signature.blob(SignatureSlot.codeDirectory))
                        let content = try folder.write("cd.bin", Data(directory))
                        let verify = [
                            "cms", "-verify", "-binary", "-inform", "DER", "-in", cms, "-content", content, "-CAfile", anchor, "-purpose",
                            "any", "-out", "/dev/null"
                        ]
                        let good = try ProcessResult.run(openssl, verify)
                        #expect(good.status == 0, "\(place): \(good.stderrText)")
                        directory[directory.count - 1] ^= 1
                        _ = try folder.write("cd.bin", Data(directory))
                        #expect(try ProcessResult.run(openssl, verify).status != 0, "\(place): openssl accepted other bytes")
                        let wrongAnchor = verify.map { $0 == anchor ? made.ecPEM == anchor ? made.caPEM : made.ecPEM : $0 }
                        _ = try folder.write("cd.bin", Data(try #require(signature.blob(SignatureSlot.codeDirectory))))
                        #expect(try ProcessResult.run(openssl, wrongAnchor).status != 0, "\(place): openssl trusted another anchor")

                        let printed = try ProcessResult.run(openssl, ["pkcs7", "-inform", "DER", "-in", cms, "-print_certs"])
                        #expect(printed.status == 0, "\(place): \(printed.stderrText)")
                        let carried = Self.certificates(pem: printed.stdoutText)
                        #expect(carried.count == expected.count && Set(carried) == expected, "\(place): the certificates carried")
                        if good.status == 0 { verified += 1 }
                    }
                }
            }
            #expect(verified >= 30)
        }
    }

    /// The DER of each certificate in `pem`, decoded from its base64.
    static func certificates(pem: String) -> [[UInt8]] {
        pem.components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst().compactMap { block in
            let body = block.components(separatedBy: "-----END CERTIFICATE-----")[0].filter { !$0.isWhitespace }
            return Data(base64Encoded: body).map(Array.init)
        }
    }

    struct Layout: Decodable {
        struct Slice: Decodable {
            var cpu: UInt32
            var offset: UInt64
            var commands: [[Scalar]]
            var segments: [[Scalar]]
            var signature: [UInt32]?
        }
        var size: UInt64
        var fat: [[UInt64]]?
        var slices: [Slice]
    }

    /// A JSON scalar of the oracle's rows: a name, hex bytes, or a number.
    typealias Scalar = FixtureOracleTests.Oracle

    static func layout(_ path: String, python: String) throws -> Layout {
        let run = try ProcessResult.run(python, [layoutOracle, path])
        if run.status == 3 { throw SetupFailure("LIEF is not installed for python3: run make deps") }
        try #require(run.status == 0, "LIEF failed on \(path): \(run.stderrText)")
        return try JSONDecoder().decode(Layout.self, from: run.stdout)
    }

    static var liefIsInstalled: Bool {
        (try? ProcessResult.run("/usr/bin/env", ["python3", "-c", "import lief"]).status == 0) ?? false
    }

    @Test(.enabled(if: liefIsInstalled || Fixtures.isRequired, "LIEF is not installed for python3 (make deps installs it)"))
    func liefReadsEveryRewrittenBinaryLaidOutAsAppleLaysItOut() throws {
        let python = try #require(ProcessResult.which("python3"), "python3 is needed for the LIEF oracle")
        try withTemporaryFolder { folder in
            var slices = 0, fat = 0
            for fixture in try ResignedFixture.all(in: folder) {
                for relative in try ResignedFixture.machOFiles(fixture.app) {
                    let place = "\(fixture) \(relative)"
                    let new = try Self.layout(fixture.app + "/" + relative, python: python)
                    let old = try Self.layout(fixture.original + "/" + relative, python: python)
                    let ours = try MachOFile(contentsOf: fixture.app + "/" + relative)
                    try #require(new.slices.count == ours.slices.count && new.slices.count == old.slices.count, "\(place)")
                    if let architectures = new.fat {
                        fat += 1
                        try #require(architectures.count == new.slices.count, "\(place)")
                        var end = UInt64(8 + 20 * architectures.count)
                        for (architecture, slice) in zip(architectures, new.slices) {
                            let (offset, size, align) = (architecture[0], architecture[1], architecture[2])
                            #expect(offset % (1 << align) == 0, "\(place): slice at \(offset) not aligned to 2^\(align)")
                            #expect(offset >= end, "\(place): slice at \(offset) overlaps the one before, which ends at \(end)")
                            #expect(slice.offset == offset, "\(place)")
                            end = offset + size
                        }
                        #expect(end <= new.size, "\(place)")
                    }
                    for (index, (slice, original)) in zip(new.slices, old.slices).enumerated() {
                        let reader = ours.slices[index]
                        let size = new.fat.map { $0[index][1] } ?? new.size
                        Self.checkSlice(slice, original: original, reader: reader, size: size, place: "\(place) \(reader.cpu)")
                        slices += 1
                    }
                }
            }
            #expect(slices >= 30)
            #expect(fat >= 3)
        }
    }

    static func checkSlice(_ slice: Layout.Slice, original: Layout.Slice, reader: MachOSlice, size: UInt64, place: String) {
        let signature = reader.codeSignature.map { [$0.dataOffset, $0.dataSize] }
        #expect(slice.signature != nil && slice.signature == signature, "\(place): LC_CODE_SIGNATURE")
        #expect((slice.signature?[0] ?? 1) % 16 == 0, "\(place): the signature starts off a 16-byte boundary")
        let last = slice.segments.max { $0[1].number < $1[1].number }
        #expect(last?[0].text == "__LINKEDIT" && slice.segments.last?[0].text == "__LINKEDIT", "\(place): __LINKEDIT is not last")
        if let linkedit = slice.segments.first(where: { $0[0].text == "__LINKEDIT" }) {
            let (fileOffset, fileSize, vmSize) = (linkedit[1].number, linkedit[2].number, linkedit[4].number)
            #expect(fileOffset + fileSize == size, "\(place): __LINKEDIT ends at \(fileOffset + fileSize), the slice at \(size)")
            let alignment: UInt64 = slice.cpu == 0x0100_000c ? 0x4000 : 0x1000
            #expect(slice.cpu == 0x0100_000c || slice.cpu == 12, "\(place): cpu \(slice.cpu)")
            #expect(vmSize >= fileSize && vmSize % alignment == 0, "\(place): __LINKEDIT vmsize \(vmSize), filesize \(fileSize)")
        }
        #expect(slice.commands.count == original.commands.count, "\(place): load command count")
        for (command, before) in zip(slice.commands, original.commands) {
            let type = command[0].number
            #expect(type == before[0].number, "\(place): load command order")
            if type == 0x1d { continue }
            var bytes = command[1].text, was = before[1].text
            if type == 0x19 || type == 0x1, segmentName(bytes) == "__LINKEDIT" {
                // vmsize and filesize (64-bit: bytes 32..<40 and 48..<56; 32-bit: 28..<32 and 36..<40), in hex digits.
                let fields = type == 0x19 ? [64..<80, 96..<112] : [56..<64, 72..<80]
                for range in fields.reversed() {
                    bytes = blank(bytes, range)
                    was = blank(was, range)
                }
            }
            #expect(bytes == was, "\(place): load command 0x\(String(type, radix: 16)) changed")
        }
    }

    static func segmentName(_ hex: String) -> String {
        let bytes = stride(from: 16, to: 48, by: 2).compactMap { offset -> UInt8? in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)
        }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    static func blank(_ hex: String, _ range: Range<Int>) -> String {
        var characters = Array(hex)
        for index in range where index < characters.count { characters[index] = "-" }
        return String(characters)
    }

    /// plistlib's reading of the plist file at `path`, type-tagged, as canonical JSON.
    static func plistlib(_ path: String, python: String) throws -> Data {
        let script = """
            import json, plistlib, sys
            def tag(v):
                if isinstance(v, bool): return {"b": v}
                if isinstance(v, int): return {"i": str(v)}
                if isinstance(v, float): return {"r": v.hex()}
                if isinstance(v, str): return {"s": v}
                if isinstance(v, bytes): return {"x": v.hex()}
                if isinstance(v, list): return {"a": [tag(x) for x in v]}
                if isinstance(v, dict): return {"o": [[k, tag(x)] for k, x in v.items()]}
                return {"unexpected": repr(v)}
            print(json.dumps(tag(plistlib.load(open(sys.argv[1], "rb")))))
            """
        let run = try ProcessResult.run(python, ["-c", script, path])
        try #require(run.status == 0, "plistlib could not read \(path): \(run.stderrText)")
        return try JSONSerialization.data(withJSONObject: try JSONSerialization.jsonObject(with: run.stdout), options: [.sortedKeys])
    }

    /// Our reading of a plist, tagged as ``plistlib(_:python:)`` tags plistlib's, as canonical JSON.
    static func tagged(_ value: PlistValue) throws -> Data {
        func tag(_ value: PlistValue) -> Any {
            switch value {
            case .bool(let bool): return ["b": bool]
            case .integer(let integer): return ["i": integer.description]
            case .real(let real): return ["r": pythonHex(real)]
            case .string(let string): return ["s": string]
            case .data(let data): return ["x": data.map { String(format: "%02x", $0) }.joined()]
            case .array(let array): return ["a": array.map(tag)]
            case .dictionary(let dictionary): return ["o": dictionary.keys.map { [$0, tag(dictionary[$0]!)] }]
            default: return ["unexpected": "\(value)"]
            }
        }
        return try JSONSerialization.data(withJSONObject: tag(value), options: [.sortedKeys])
    }

    /// `float.hex()`: `0x1.f400000000000p+9` (normal numbers; the plists here hold only those and 0).
    static func pythonHex(_ value: Double) -> String {
        if value == 0 { return value.sign == .minus ? "-0x0.0p+0" : "0x0.0p+0" }
        let mantissa = String(value.significandBitPattern, radix: 16)
        let padded = String(repeating: "0", count: 13 - mantissa.count) + mantissa
        return (value.sign == .minus ? "-" : "") + "0x1.\(padded)p\(value.exponent >= 0 ? "+" : "")\(value.exponent)"
    }

    @Test func plistlibReadsTheWrittenCodeResourcesAndEntitlementsAsWeDo() throws {
        let python = try #require(ProcessResult.which("python3"), "python3 is needed for the plistlib oracle")
        #expect(Self.pythonHex(1000) == "0x1.f400000000000p+9")
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            let identity = try SigningIdentity(p12: made.rsa, password: .file(made.passwordFile))
            var resources = 0, entitlements = 0
            for ipa in ResignedFixture.names() {
                let fixture = try ResignedFixture(ipa, identity: identity, made: made, in: folder)
                for bundle in [fixture.app] + ResignedFixture.nestedBundles(fixture.app) {
                    let path = bundle + "/_CodeSignature/CodeResources"
                    let ours = try PropertyList(data: Data(contentsOf: URL(fileURLWithPath: path))).value
                    #expect(try Self.plistlib(path, python: python) == Self.tagged(ours), "\(ipa) \(path)")
                    resources += 1

                    let executable = try #require(try ResignedFixture.info(bundle)["CFBundleExecutable"]?.stringValue)
                    let signature = try #require(try MachOFile(contentsOf: bundle + "/" + executable).slices.first?.embeddedSignature())
                    let blob = try #require(signature.blob(SignatureSlot.entitlements), "\(ipa) \(executable): no entitlements")
                    let payload = try folder.write("entitlements.plist", Data(blob.dropFirst(8)))
                    let read = try #require(try signature.entitlements?.entitlements())
                    #expect(try Self.plistlib(payload, python: python) == Self.tagged(read), "\(ipa) \(executable)")
                    #expect(read.dictionaryValue?["application-identifier"]?.stringValue?.hasPrefix("ABCDE12345.") == true)
                    entitlements += 1
                }
            }
            #expect(resources == 10 && entitlements == 10)
        }
    }
}

extension FixtureOracleTests.Oracle {
    var number: UInt64 { if case .number(let value) = self { value } else { 0 } }
    var text: String { if case .text(let value) = self { value } else { "" } }
}

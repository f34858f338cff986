import Foundation
import PlistKit
import TestSupport
import Testing

/// Checks PlistKit against implementations nobody here wrote: Python's plistlib (reading what
/// it writes, and having it read what we write) and libplist's `plistutil`.
@Suite(.serialized) struct OracleDifferentialTests {
    static let caseCount = 150
    static let oracle = Fixtures.packageRoot.appendingPathComponent("Tests/Oracles/plist_oracle.py").path

    /// Turns the oracle's type-tagged JSON (parsed by Foundation, not by us) into the expected value.
    struct OracleFormatError: Error { var what: String }

    static func need<T>(_ value: T?, _ what: String) throws -> T {
        guard let value else { throw OracleFormatError(what: what) }
        return value
    }

    /// Turns the oracle's type-tagged JSON (parsed by Foundation, not by us) into the expected value.
    static func untag(_ object: Any) throws -> PlistValue {
        let tagged = try need(object as? [String: Any], "a tagged object")
        let (kind, body) = try need(tagged.first, "a tag")
        switch kind {
        case "s": return .string(try need(body as? String, "string"))
        case "i": return .integer(try need(PlistInteger(try need(body as? String, "integer text")), "integer"))
        case "r":
            let text = try need(body as? String, "real text")
            return .real(text == "nan" ? .nan : try need(Double(text), "real"))
        case "b": return .bool(try need((body as? NSNumber)?.boolValue, "bool"))
        case "d": return .date(try need(PlistDate(iso8601: try need(body as? String, "date text")), "date"))
        case "x":
            let hex = Array(try need(body as? String, "hex").utf8)
            var bytes = [UInt8]()
            var index = 0
            while index < hex.count {
                bytes.append(try need(UInt8(String(decoding: hex[index..<index + 2], as: UTF8.self), radix: 16), "hex"))
                index += 2
            }
            return .data(Data(bytes))
        case "a": return .array(try need(body as? [Any], "array").map(untag))
        case "o":
            var dict = PlistDictionary()
            for pair in try need(body as? [[Any]], "pairs") {
                dict.append(try need(pair[0] as? String, "key"), try untag(pair[1]))
            }
            return .dictionary(dict)
        default:
            throw OracleFormatError(what: "unknown tag \(kind)")
        }
    }

    func generate(_ folder: TemporaryFolder, seed: Int) throws {
        let python = try #require(ProcessResult.which("python3"), "python3 is needed for the plistlib oracle")
        let result = try ProcessResult.run(
            python,
            [
                Self.oracle, "generate", folder.url.path,
                String(Self.caseCount), String(seed)
            ])
        try #require(result.status == 0, "oracle generate failed: \(result.stderrText)")
    }

    /// What plistlib read from its own file (`binary`: from its binary one, where that differs).
    func expected(_ folder: TemporaryFolder, _ index: Int, binary: Bool = false) throws -> PlistValue {
        var name = "case_\(index).expect.json"
        if binary && FileManager.default.fileExists(atPath: folder.path("case_\(index).bin.expect.json")) {
            name = "case_\(index).bin.expect.json"
        }
        let json = try Data(contentsOf: URL(fileURLWithPath: folder.path(name)))
        return try Self.untag(try JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed]))
    }

    @Test func plistlibOutputReadsBackEqualAndOurOutputLoadsEqualInPlistlib() throws {
        try withTemporaryFolder { folder in
            try generate(folder, seed: 20_261_202)
            for index in 0..<Self.caseCount {
                let expected = try expected(folder, index)
                let fromXML = try PropertyList(contentsOf: folder.path("case_\(index).xml"))
                let fromBinary = try PropertyList(contentsOf: folder.path("case_\(index).bin"))
                #expect(fromXML.format == .xml && fromBinary.format == .binary)
                #expect(fromXML.value == expected, "case_\(index).xml read differently")
                #expect(fromBinary.value == (try self.expected(folder, index, binary: true)), "case_\(index).bin read differently")
                try PropertyList(expected).write(to: folder.path("ours_\(index).xml"), format: .xml)
                try PropertyList(expected).write(to: folder.path("ours_\(index).bin"), format: .binary)
            }
            let python = try #require(ProcessResult.which("python3"))
            let check = try ProcessResult.run(python, [Self.oracle, "check", folder.url.path])
            #expect(check.status == 0, "plistlib disagrees:\n\(check.stdoutText)\(check.stderrText)")
            #expect(check.stdoutText.hasSuffix("\(Self.caseCount * 2) checked, 0 failed\n"))
        }
    }

    @Test func ourBinaryIsByteIdenticalToPlistlibsForTheSameValue() throws {
        // plistlib's binary writer follows Core Foundation's object order and uniquing; so do we.
        try withTemporaryFolder { folder in
            try generate(folder, seed: 7)
            var identical = 0
            for index in 0..<Self.caseCount {
                let theirs = try Data(contentsOf: URL(fileURLWithPath: folder.path("case_\(index).bin")))
                let value = try BinaryPlistReader().read(theirs)
                if try BinaryPlistWriter().write(value) == theirs { identical += 1 }
            }
            #expect(identical == Self.caseCount)
        }
    }

    /// libplist writes -0.0 to XML as `0.0`; compare modulo that one known quirk.
    static func withoutNegativeZero(_ value: PlistValue) -> PlistValue {
        switch value {
        case .real(let real) where real == 0: return .real(0)
        case .array(let items): return .array(items.map(withoutNegativeZero))
        case .dictionary(let dict):
            return .dictionary(PlistDictionary(dict.map { ($0.0, withoutNegativeZero($0.1)) }))
        default: return value
        }
    }

    @Test func plistutilAgreesWithUsInBothDirections() throws {
        guard let plistutil = ProcessResult.which("plistutil") else {
            if Fixtures.isRequired { Issue.record("plistutil (libplist-utils) is required in CI but not installed") }
            return
        }
        try withTemporaryFolder { folder in
            try generate(folder, seed: 99)
            for index in 0..<Self.caseCount {
                let expected = try expected(folder, index)
                // Our binary -> plistutil XML -> us. plistutil exits 0 even on failure and copies input
                // through when the formats match, so force the output format and check what came out.
                let ours = folder.path("ours_\(index).bin")
                try PropertyList(expected).write(to: ours, format: .binary)
                let viaXML = folder.path("pu_\(index).xml")
                _ = try ProcessResult.run(plistutil, ["-i", ours, "-f", "xml", "-o", viaXML])
                let xmlBytes = try Data(contentsOf: URL(fileURLWithPath: viaXML))
                #expect(xmlBytes.starts(with: Array("<?xml".utf8)), "plistutil wrote no XML for case \(index)")
                #expect(
                    Self.withoutNegativeZero(try XMLPlistReader().read(xmlBytes)) == Self.withoutNegativeZero(expected),
                    "plistutil's XML of our binary, case \(index)")
                // Our XML -> plistutil binary -> us.
                let oursXML = folder.path("ours_\(index).xml")
                try PropertyList(expected).write(to: oursXML, format: .xml)
                let viaBinary = folder.path("pu_\(index).bin")
                _ = try ProcessResult.run(plistutil, ["-i", oursXML, "-f", "bin", "-o", viaBinary])
                let binaryBytes = try Data(contentsOf: URL(fileURLWithPath: viaBinary))
                #expect(binaryBytes.starts(with: Array("bplist00".utf8)), "plistutil wrote no binary for case \(index)")
                #expect(try BinaryPlistReader().read(binaryBytes) == expected, "plistutil's binary of our XML, case \(index)")
            }
        }
    }
}

extension OracleDifferentialTests {
    @Test func theStreamingReadersAgreeWithTheValueReadersOnEveryCase() throws {
        try withTemporaryFolder { folder in
            try generate(folder, seed: 31337)
            for index in 0..<Self.caseCount {
                for (name, format) in [("case_\(index).xml", PlistFormat.xml), ("case_\(index).bin", .binary)] {
                    let data = try Data(contentsOf: URL(fileURLWithPath: folder.path(name)))
                    let builder = PlistTreeBuilder()
                    if format == .xml {
                        try XMLPlistReader().read(data, into: builder)
                    } else {
                        try BinaryPlistReader().read(data, into: builder)
                    }
                    #expect(builder.root == (try PropertyList(data: data).value), "\(name)")
                }
            }
        }
    }
}

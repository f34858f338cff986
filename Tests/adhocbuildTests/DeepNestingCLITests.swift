import Foundation
import TestSupport
import Testing

/// Issue 31, crashes: with ADHOCBUILD_MAX_PLIST_DEPTH raised, as the README invites, a deeply nested
/// plist is read, converted and printed without exhausting the stack (20,000-deep JSON and OpenStep
/// and 50,000-deep XML crashed); the variable has a ceiling the stack holds; and `plist set` refuses a
/// key path that would nest deeper than the readers allow instead of writing what cannot be read back.
@Suite struct DeepNestingCLITests {
    static let raised = ["ADHOCBUILD_MAX_PLIST_DEPTH": "50000"]

    @Test func deepJSONOpenStepAndXMLAreReadConvertedAndCheckedWithTheLimitRaised() throws {
        try withTemporaryFolder { folder in
            let documents = [
                ("deep.json", String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000)),
                ("deep.plist", String(repeating: "(", count: 20_000) + String(repeating: ")", count: 20_000)),
                (
                    "deep.xml",
                    "<plist>" + String(repeating: "<array>", count: 49_990) + String(repeating: "</array>", count: 49_990) + "</plist>"
                )
            ]
            for (name, text) in documents {
                let path = try folder.write(name, Data(text.utf8))
                let binary = folder.path(name + ".bin")
                let convert = try AdhocBuildBinary.run(
                    ["plist", "convert", path, "--to", "binary", "-o", binary], extraEnvironment: Self.raised)
                #expect(convert.status == 0, "\(name): \(convert.stderrText)")
                let lint = try AdhocBuildBinary.run(["plist", "lint", binary], extraEnvironment: Self.raised)
                #expect(lint.status == 0, "\(name): \(lint.stderrText)")
                // Without the raised limit: one line, exit 1, no crash.
                let refused = try AdhocBuildBinary.run(["plist", "print", binary])
                #expect(refused.status == 1)
                #expect(refused.stderrText.contains("nesting deeper than 512 levels"), "\(refused.stderrText)")
            }
            // Writing text formats and printing recurse too.
            let deep = try folder.write("d.json", Data((String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000)).utf8))
            for format in ["xml", "json"] {
                let result = try AdhocBuildBinary.run(
                    ["plist", "convert", deep, "--to", format, "-o", folder.path("out." + format)], extraEnvironment: Self.raised)
                #expect(result.status == 0, "\(format): \(result.stderrText)")
            }
            #expect(try AdhocBuildBinary.run(["plist", "print", deep], extraEnvironment: Self.raised).status == 0)
        }
    }

    @Test func theDepthLimitHasACeilingTheStackHolds() throws {
        let result = try AdhocBuildBinary.run(["plist", "print", "-"], extraEnvironment: ["ADHOCBUILD_MAX_PLIST_DEPTH": "100000"])
        #expect(result.status == 2)
        #expect(
            result.stderrText.hasPrefix(
                "error: ADHOCBUILD_MAX_PLIST_DEPTH: '100000' is more than 50000, the deepest nesting adhocbuild can read\n"))
    }

    @Test func aKeyPathDeeperThanTheReadersAllowIsRefused() throws {
        try withTemporaryFolder { folder in
            let path = try folder.write("Info.plist", Data("<plist><dict/></plist>".utf8))
            let keyPath = Array(repeating: "a", count: 10_000).joined(separator: ":")
            let result = try AdhocBuildBinary.run(["plist", "set", path, keyPath, "x"])
            #expect(result.status == 1)
            #expect(result.stderrText.hasPrefix("error: \(path): the key path has 10000 parts, which would nest deeper than 512 levels"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("<plist><dict/></plist>".utf8))
            // One level less is written and reads back.
            let fits = Array(repeating: "a", count: 511).joined(separator: ":")
            #expect(try AdhocBuildBinary.run(["plist", "set", path, fits, "x"]).status == 0)
            #expect(try AdhocBuildBinary.run(["plist", "lint", path]).status == 0)
        }
    }
}

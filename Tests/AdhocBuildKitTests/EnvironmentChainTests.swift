import Foundation
import PlistKit
import TestSupport
import Testing

@testable import AdhocBuildKit

/// Issue 31: `env check` of environments in a long inheritance chain searched every environment for
/// each parent and merged each environment's whole chain again, so its work grew with the cube of
/// their number (3,000 in a chain did not end). Each file is now merged once per check.
@Suite struct EnvironmentChainTests {
    /// `count` environments E0000, E0001, … each inheriting the one before and setting its own level,
    /// on a Base that every one of them expands; `reversed` names them so that each sorts before
    /// its parent (checked child first). Written without a flush each, which took most of the test.
    func chain(_ count: Int, in folder: TemporaryFolder, reversed: Bool = false) throws -> String {
        func name(_ index: Int) -> String { String(format: "E%04d", reversed ? count - 1 - index : index) }
        let path = try folder.environments([
            "Base": ["Settings": ["API": "https://api.example.com/$(CONFIGURATION)", "Level": "none"]]
        ])
        for index in 0..<count {
            let inherits = index > 0 ? "<key>Inherits</key><string>\(name(index - 1))</string>" : ""
            let settings = "<key>Settings</key><dict><key>Level</key><string>\(index)</string></dict>"
            let text = "<plist version=\"1.0\"><dict>\(inherits)\(settings)</dict></plist>"
            let fd = open(path + "/" + name(index) + ".plist", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            try #require(fd >= 0)
            defer { close(fd) }
            try #require(text.utf8.count == text.withCString { write(fd, $0, strlen($0)) })
        }
        return path
    }

    @Test(arguments: [false, true]) func everyFileOfAChainOfThreeThousandIsMergedOnce(reversed: Bool) throws {
        try withTemporaryFolder { folder in
            let count = 3000
            let resolver = EnvironmentResolver(store: try EnvironmentStore(at: try chain(count, in: folder, reversed: reversed)))
            let merges = LayerMerges()
            let report = EnvironmentChecker(resolver: resolver).check([], merges: merges)
            #expect(report.summary == "3000 environments checked: 0 errors, 0 warnings")
            // Base once, and each environment's own file once (merging every chain afresh was 4.5 million).
            #expect(merges.layersApplied == count + 1)
            let last = String(format: "E%04d", reversed ? 0 : count - 1)
            let resolved = try resolver.resolve(last)
            #expect(resolved.chain.count == count)
            #expect(resolved.chain.first == String(format: "E%04d", reversed ? count - 1 : 0))
            #expect(resolved.settings["Level"] == .string(String(count - 1)))
            #expect(resolved.settings["API"] == .string("https://api.example.com/\(last)"))
            #expect(resolved.leaf(at: PlistKeyPath(["Settings", "Level"]))?.file == folder.path("environments/\(last).plist"))
            #expect(resolved.leaf(at: PlistKeyPath(["Settings", "API"]))?.file == folder.path("environments/Base.plist"))
        }
    }

    /// A chain cut by a missing parent or closed into a cycle far from the environment checked is
    /// named whole, as in a short one, for every environment that inherits from it.
    @Test func aLongChainIntoACycleOrAMissingParentIsNamedWhole() throws {
        try withTemporaryFolder { folder in
            var files: [String: PlistValue] = [:]
            for index in 0..<40 { files["C\(index)"] = ["Inherits": .string("C\(index + 1)")] }
            files["C40"] = ["Inherits": "C30"]
            for index in 0..<20 { files["M\(index)"] = ["Inherits": .string("M\(index + 1)")] }
            files["M20"] = ["Inherits": "Nowhere"]
            let path = try folder.environments(files)
            let resolver = EnvironmentResolver(store: try EnvironmentStore(at: path))
            let report = EnvironmentChecker(resolver: resolver).check(["C0", "C35", "M0", "M20"])
            func names(_ prefix: String, _ range: ClosedRange<Int>) -> String {
                range.map { "\(prefix)\($0)" }.joined(separator: " -> ")
            }
            #expect(
                report.results.map { $0.errors.map(\.description) } == [
                    ["\(path)/C30.plist: at 'Inherits': inheritance cycle: \(names("C", 0...40)) -> C30"],
                    ["\(path)/C35.plist: at 'Inherits': inheritance cycle: \(names("C", 35...40)) -> \(names("C", 30...35))"],
                    ["\(path)/M20.plist: at 'Inherits': inherits 'Nowhere', which does not exist (\(names("M", 0...20)) -> Nowhere)"],
                    ["\(path)/M20.plist: at 'Inherits': inherits 'Nowhere', which does not exist (M20 -> Nowhere)"]
                ])
        }
    }
}

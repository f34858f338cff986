import CodeSign
import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// Every CodeResources of every fixture bundle: written back byte for byte, and re-derived from the
/// bundle's files with its own rules (which files are sealed, optional, and their hashes).
@Suite(Fixtures.enabled) struct FixtureCodeResourcesTests {
    @Test func everyCodeResourcesWritesBackByteForByte() throws {
        var count = 0
        for code in try FixtureCode.all() {
            let stored = try #require(code.bundleFile("_CodeSignature/CodeResources"), "\(code)")
            let resources = try CodeResources(data: stored)
            #expect(try resources.data() == stored, "\(code)")
            count += 1
        }
        #expect(count == 19)
    }

    @Test func rulesSealExactlyTheFilesTheFixtureSealsWithTheirHashes() throws {
        var sealed = 0
        // The bundle's own executable: a loose dylib's enclosing CodeResources is its app's.
        for code in try FixtureCode.all() where code.isBundleExecutable {
            let resources = try CodeResources(data: try #require(code.bundleFile("_CodeSignature/CodeResources")))
            let executable = String(code.entry.dropFirst(code.bundle.count))
            // Every file of the bundle except its executable and its own signature folder.
            let paths = code.archive.entries.filter { !$0.isDirectory && $0.name.hasPrefix(code.bundle) }.map {
                String($0.name.dropFirst(code.bundle.count))
            }
            .filter { $0 != executable && !$0.hasPrefix("_CodeSignature/") }
            for (version, rules, seals) in [(1, resources.rules, resources.files), (2, resources.rules2, resources.files2)] {
                let matcher = try ResourceRuleMatcher(rules)
                var derived: [String: ResourceSeal] = [:]
                for path in paths {
                    guard case .sealed(let optional) = matcher.verdict(for: path) else { continue }
                    let bytes = try #require(code.bundleFile(path))
                    let old = seals[path]
                    // Which digests a seal holds depends on the Xcode version; recompute those it holds.
                    derived[path] = ResourceSeal(
                        hash: old?.hash == nil ? nil : Digest.sha1(bytes), hash2: old?.hash2 == nil ? nil : Digest.sha256(bytes),
                        optional: optional)
                }
                #expect(Set(derived.keys) == Set(seals.keys), "\(code) files\(version == 2 ? "2" : "")")
                for (path, seal) in derived {
                    #expect(seal == seals[path], "\(code) \(version): \(path)")
                    sealed += 1
                }
            }
        }
        #expect(sealed > 100)
    }

    @Test func omitRulesWinOverHeavierRulesAndTheHeaviestMatchDecides() throws {
        let matcher = try ResourceRuleMatcher([
            ResourceRule("^", weight: 20), ResourceRule("^Info\\.plist$", weight: 20, omit: true),
            ResourceRule("^.*\\.lproj/", weight: 1000, optional: true), ResourceRule("^Base\\.lproj/", weight: 1010),
            ResourceRule("^(Frameworks|PlugIns)/", weight: 30, nested: true)
        ])
        #expect(matcher.verdict(for: "Info.plist") == .omitted)
        #expect(matcher.verdict(for: "Assets.car") == .sealed(optional: false))
        #expect(matcher.verdict(for: "en.lproj/Main.strings") == .sealed(optional: true))
        #expect(matcher.verdict(for: "Base.lproj/Main.nib") == .sealed(optional: false))
        #expect(matcher.verdict(for: "PlugIns/A.appex") == .nested)
        #expect(try ResourceRuleMatcher([ResourceRule("^a")]).verdict(for: "b") == .omitted)
        expectCodeSign(.malformed) { try ResourceRuleMatcher([ResourceRule("(")]) }
    }
}

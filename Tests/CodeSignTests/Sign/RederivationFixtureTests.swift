import CodeSign
import Foundation
import TestSupport
import Testing

/// Issue 17's proof that the model is exact: every CodeResources, requirement set, entitlements blob
/// and CodeDirectory of every fixture is rebuilt from the bundle by the generators signing uses, with
/// the parameters read from the original, and equals the original byte for byte.
@Suite(Fixtures.enabled) struct RederivationFixtureTests {
    @Test func everyCodeResourcesIsRegeneratedWithItsXcodeRules() throws {
        var equal = 0
        // Each bundle's own CodeResources (a loose dylib's enclosing one is its app's).
        for code in try FixtureCode.all() where code.isBundleExecutable {
            let original = try #require(code.bundleFile("_CodeSignature/CodeResources"))
            let rebuilt = try FixtureRederivation(code).codeResources()
            #expect(rebuilt == original, "\(code): \(FixtureRederivation.difference(Array(rebuilt), Array(original)))")
            if rebuilt == original { equal += 1 }
        }
        #expect(equal == 10)
    }

    @Test func everyRequirementSetIsTheDesignatedRequirementOfItsSigner() throws {
        var equal = 0
        for code in try FixtureCode.all() {
            let rederivation = try FixtureRederivation(code)
            let original = try #require(rederivation.signature.blob(SignatureSlot.requirements))
            let rebuilt = try rederivation.requirements()
            #expect(rebuilt == original, "\(code): \(FixtureRederivation.difference(rebuilt, original))")
            if rebuilt == original { equal += 1 }
        }
        #expect(equal == 19)
    }

    @Test func everyEntitlementsBlobIsRebuiltFromItsEntitlements() throws {
        var xml = 0, der = 0
        for code in try FixtureCode.all() {
            let rederivation = try FixtureRederivation(code)
            if let original = rederivation.signature.blob(SignatureSlot.entitlements), let rebuilt = try rederivation.entitlements() {
                #expect(rebuilt == original, "\(code) XML: \(FixtureRederivation.difference(rebuilt, original))")
                if rebuilt == original { xml += 1 }
            }
            if let original = rederivation.signature.blob(SignatureSlot.derEntitlements), let rebuilt = try rederivation.derEntitlements() {
                #expect(rebuilt == original, "\(code) DER: \(FixtureRederivation.difference(rebuilt, original))")
                if rebuilt == original { der += 1 }
            }
        }
        #expect(xml == 19)
        #expect(der == 4)
    }

    @Test func everyCodeDirectoryOfEverySliceIsRebuiltFromTheCode() throws {
        var equal = 0, total = 0
        for code in try FixtureCode.all() {
            for directory in try FixtureRederivation(code).codeDirectories() {
                total += 1
                #expect(
                    directory.rebuilt == directory.original,
                    "\(directory.name): \(FixtureRederivation.difference(directory.rebuilt, directory.original))")
                if directory.rebuilt == directory.original { equal += 1 }
            }
        }
        #expect(total == 44)
        #expect(equal == 44)
    }
}

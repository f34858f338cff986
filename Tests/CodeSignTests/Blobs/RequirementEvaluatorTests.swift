import CodeSign
import Foundation
import PlistKit
import TestSupport
import Testing

/// Designated requirements evaluated against the code's own identity and certificate chain, as
/// `codesign --verify` evaluates them.
@Suite struct RequirementEvaluatorTests {
    /// The context a fixture slice's designated requirement is checked in.
    static func context(_ item: TrustCase, chainFrom other: TrustCase? = nil) throws -> RequirementContext {
        let cms = try CodeSignatureCMS(cms: try #require(item.signature.signature).cms, content: [])
        let chainSource = try other.map { try CodeSignatureCMS(cms: try #require($0.signature.signature).cms, content: []) } ?? cms
        return RequirementContext(
            identifier: item.signature.codeDirectory?.identifier, cdhashes: item.signature.codeDirectories.map { $0.cdhash() },
            chain: RequirementContext.chain(from: chainSource.signer, among: chainSource.certificates))
    }

    @Test(Fixtures.enabled) func everyFixtureSatisfiesItsDesignatedRequirementAndNoOtherIdentityDoes() throws {
        let cases = try TrustCase.all()
        #expect(cases.count == 34)
        for item in cases {
            let designated = try #require(item.signature.requirements?.designated, "\(item)")
            var context = try Self.context(item)
            // Every fixture's requirement is judged in full, never left undetermined.
            #expect(RequirementEvaluator.evaluate(designated.expression, in: context) == .satisfied, "\(item)")
            #expect(context.chain.count >= 1)
            context.identifier = "com.example.other"
            #expect(RequirementEvaluator.evaluate(designated.expression, in: context) == .notSatisfied, "\(item)")
            // Another signer's chain (another developer, or the self-signed fixture) does not satisfy it.
            let signer = try Self.context(item).chain.first?.der
            let other = try #require(try cases.first { try Self.context($0).chain.first?.der != signer })
            let crossed = try Self.context(item, chainFrom: other)
            #expect(RequirementEvaluator.evaluate(designated.expression, in: crossed) == .notSatisfied, "\(item) with \(other)'s chain")
        }
    }

    @Test(Fixtures.enabled) func anAppleChainRunsFromTheLeafThroughTheWWDRIntermediateToTheRoot() throws {
        let item = try #require(try TrustCase.all().first { $0.ipa == "ipa-server_Test_dev-xcode12.ipa" })
        let chain = try Self.context(item).chain
        #expect(chain.count == 3)
        #expect(chain.last?.sha256 == CertificateChain.appleRootCASHA256)
        // Apple's developer marker is on the WWDR intermediate, not on the leaf.
        let marker: [UInt8] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x63, 0x64, 0x06, 0x02, 0x01]
        #expect(chain[1].hasExtension(oid: marker))
        #expect(!chain[0].hasExtension(oid: marker))
    }

    @Test func andOrAndNotUseThreeValuedLogic() {
        let context = RequirementContext(identifier: "a.b", cdhashes: [[1, 2]], chain: [])
        let unknown = RequirementExpression.notarized
        func result(_ expression: RequirementExpression) -> RequirementEvaluation { RequirementEvaluator.evaluate(expression, in: context) }
        #expect(result(.and(unknown, .never)) == .notSatisfied)
        #expect(result(.or(unknown, .always)) == .satisfied)
        #expect(result(.and(.always, unknown)) == .undetermined("notarized"))
        #expect(result(.not(unknown)) == .undetermined("notarized"))
        #expect(result(.identifier(Array("a.b".utf8))) == .satisfied)
        #expect(result(.not(.identifier(Array("a.c".utf8)))) == .satisfied)
        #expect(result(.cdhash([1, 2])) == .satisfied)
        // No chain at all: any certificate clause fails rather than passing by default.
        #expect(result(.anchorAppleGeneric) == .notSatisfied)
        #expect(result(.certificateField(slot: 0, field: Array("subject.CN".utf8), match: .exists)) == .notSatisfied)
    }

    @Test func entitlementAndInfoFieldsCompareTheirValues() {
        let context = RequirementContext(
            identifier: nil, cdhashes: [], chain: [], info: (["CFBundleShortVersionString": "1.4.0"] as PlistValue).dictionaryValue,
            entitlements: (["get-task-allow": true, "application-identifier": "T.com.example"] as PlistValue).dictionaryValue)
        func result(_ expression: RequirementExpression) -> RequirementEvaluation { RequirementEvaluator.evaluate(expression, in: context) }
        #expect(result(.entitlementField(key: Array("application-identifier".utf8), match: .beginsWith(Array("T.".utf8)))) == .satisfied)
        #expect(result(.entitlementField(key: Array("get-task-allow".utf8), match: .equal(Array("true".utf8)))) == .satisfied)
        #expect(result(.entitlementField(key: Array("missing".utf8), match: .exists)) == .notSatisfied)
        #expect(result(.infoKeyField(key: Array("CFBundleShortVersionString".utf8), match: .greaterEqual(Array("1.4".utf8)))) == .satisfied)
        #expect(result(.infoKeyValue(key: Array("CFBundleShortVersionString".utf8), value: Array("2.0".utf8))) == .notSatisfied)
    }
}

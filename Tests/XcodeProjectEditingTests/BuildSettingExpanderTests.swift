import Foundation
import SystemSupport
import Testing
import XcodeProjectEditing

@Suite struct BuildSettingExpanderTests {
    let expander = BuildSettingExpander(variables: [
        "NAME": "Shout Out", "CONFIGURATION": "Staging", "EMPTY": "", "PREFIX": "com.example",
        "ID": "$(PREFIX).$(NAME:rfc1034identifier:lower)",
        "LOOP": "$(LOOP2)", "LOOP2": "$(LOOP)", "VERSION": "2.0-beta 1"
    ])

    @Test func expandsBothBracketFormsAndDollarDollar() throws {
        #expect(try expander.expand("$(NAME) and ${CONFIGURATION}, $$5") == "Shout Out and Staging, $5")
        #expect(try expander.expand("no references") == "no references")
        #expect(try expander.expand("a lone $ sign") == "a lone $ sign")
    }

    @Test func appliesOperatorsLeftToRight() throws {
        #expect(try expander.expand("$(NAME:lower)") == "shout out")
        #expect(try expander.expand("$(NAME:upper)") == "SHOUT OUT")
        #expect(try expander.expand("$(NAME:identifier)") == "Shout_Out")
        #expect(try expander.expand("$(NAME:rfc1034identifier)") == "Shout-Out")
        #expect(try expander.expand("$(VERSION:c99extidentifier)") == "_2_0_beta_1")
        #expect(try expander.expand("$(NAME:rfc1034identifier:lower)") == "shout-out")
        #expect(BuildSettingExpander(variables: ["N": "Café 1"]).expandOrNil("$(N:c99extidentifier)") == "Café_1")
    }

    @Test func defaultsApplyWhenUndefinedOrEmptyAndMayHoldColonsAndReferences() throws {
        #expect(try expander.expand("$(MISSING:default=https://x.example:8443/)") == "https://x.example:8443/")
        #expect(try expander.expand("$(EMPTY:default=$(CONFIGURATION:lower))") == "staging")
        #expect(try expander.expand("$(NAME:default=unused)") == "Shout Out")
        #expect(try expander.expand("$(MISSING:default=)") == "")
    }

    @Test func variablesMayReferToEachOtherAndNamesMayBeBuiltFromReferences() throws {
        #expect(try expander.expand("$(ID)") == "com.example.shout-out")
        #expect(try BuildSettingExpander(variables: ["A_Staging": "yes", "C": "Staging"]).expand("$(A_$(C))") == "yes")
    }

    @Test func undefinedUnknownCyclicAndUnterminatedReferencesAreErrors() {
        #expect(
            throws: Diagnostic.expansion(
                "$(API_URL) is not defined (give it with --setting API_URL=VALUE, or add :default=VALUE)",
                undefinedVariable: "API_URL")
        ) {
            try expander.expand("$(API_URL)/v2")
        }
        #expect(throws: Diagnostic.expansion("unknown operator ':snake' in $(NAME:snake)")) {
            try expander.expand("$(NAME:snake)")
        }
        #expect(throws: Diagnostic.expansion("$(LOOP) refers to itself ($(LOOP) -> $(LOOP2) -> $(LOOP))")) {
            try expander.expand("$(LOOP)")
        }
        #expect(throws: Diagnostic.expansion("unterminated reference '$(NAME'")) { try expander.expand("$(NAME") }
    }
}

extension BuildSettingExpander {
    func expandOrNil(_ text: String) -> String? { try? expand(text) }
}

/// Issue 31: expansion is bounded in work and in length, so variables that each use the previous one
/// four times (a 1 KB file expanding to 268 M characters, or to nothing after 4^n references) end at
/// once with one line.
@Suite struct BoundedExpansionTests {
    /// `V0 = seed`, and each next variable four uses of the one before.
    static func chain(_ count: Int, seed: String) -> [String: String] {
        var variables = ["V0": seed]
        for index in 1..<count { variables["V\(index)"] = String(repeating: "$(V\(index - 1))", count: 4) }
        return variables
    }

    @Test func aChainThatGrowsPastTheLengthLimitIsRefusedAtOnce() throws {
        let expander = BuildSettingExpander(variables: Self.chain(15, seed: String(repeating: "abcd", count: 25)))
        #expect(
            throws: Diagnostic.expansion(
                "the expansion is longer than 1048576 characters; variables refer to each other too often")
        ) { try expander.expand("$(V14)") }
    }

    /// Each variable is expanded once per expansion, however often it is used: 20 levels that each use
    /// the previous one four times are 80 references, not 4^20 (which took seconds to refuse).
    @Test func aVariableUsedManyTimesIsExpandedOnce() throws {
        #expect(try BuildSettingExpander(variables: Self.chain(20, seed: "")).expand("$(V19)") == "")
        var looked = 0
        let counting = BuildSettingExpander { name in
            looked += 1
            return Self.chain(20, seed: "")[name]
        }
        _ = try counting.expand("$(V19)")
        #expect(looked == 1 + 19 * 4)
    }

    @Test func aTextWithTooManyReferencesIsRefusedByItsReferenceCount() throws {
        let expander = BuildSettingExpander(variables: ["E": ""])
        #expect(
            throws: Diagnostic.expansion(
                "the expansion takes more than 100000 references; variables refer to each other too often")
        ) { try expander.expand(String(repeating: "$(E)", count: 100_001)) }
        #expect(try expander.expand(String(repeating: "$(E)", count: 100_000)) == "")
    }

    /// A chain of variables that each hold the previous one copies the value once per link: a 1 MB
    /// value through 20 links is 20 M characters copied, refused past the copy limit.
    @Test func aLongValueCopiedThroughAChainIsRefusedByWhatItCopies() throws {
        var variables = ["L0": String(repeating: "a", count: 1_000_000)]
        for link in 1..<20 { variables["L\(link)"] = "$(L\(link - 1))" }
        #expect(
            throws: Diagnostic.expansion(
                "the expansion copies more than 16777216 characters; variables refer to each other too often")
        ) { try BuildSettingExpander(variables: variables).expand("$(L19)") }
        #expect(try BuildSettingExpander(variables: variables).expand("$(L10)").count == 1_000_000)
    }

    @Test func aChainWithinTheLimitsExpandsInFull() throws {
        // 4^7 = 16,384 references and 65,536 characters.
        let expanded = try BuildSettingExpander(variables: Self.chain(8, seed: "abcd")).expand("$(V7)")
        #expect(expanded.count == 4 * 16_384)
    }
}

import Foundation
import PlistKit
import TestSupport
import Testing

/// Core Foundation (through the toolchain's `plutil`) as the oracle for every reader on
/// degenerate and malformed input: for each case in `DegeneratePlistInputs`, both must accept
/// with the same value or both must refuse, apart from the divergences listed here with reasons.
@Suite struct PlutilDifferentialTests {
    /// Where we knowingly differ from Core Foundation, and why.
    enum Divergence {
        /// Core Foundation reads it; we refuse it on purpose.
        case weRefuse(String)
        /// Both read it, to different values, on purpose.
        case valuesDiffer(String)
    }

    static let intentional: [String: Divergence] = [:]

    /// What our reader made of one input.
    enum Outcome {
        case accepted(PlistValue)
        case refused(PlistError)
    }

    static func ours(_ bytes: Data) -> Outcome {
        do {
            return .accepted(try PropertyList(data: bytes).value)
        } catch let error as PlistError {
            return .refused(error)
        } catch {
            return .refused(PlistError(.io, "not a PlistError: \(error)"))
        }
    }

    /// The value as it survives a trip through plutil's XML: UIDs become `CF$UID` dictionaries,
    /// dates lose their fraction of a second, and -0.0 is written `0.0` (Core Foundation reads
    /// -0.0 correctly; its binary conversion keeps the sign).
    static func asXMLKeepsIt(_ value: PlistValue) -> PlistValue {
        switch value {
        case .real(let real) where real == 0: return .real(0)
        case .uid(let uid): return .dictionary(PlistDictionary([("CF$UID", .integer(PlistInteger(uid)))]))
        case .date(let date):
            return .date(PlistDate(secondsSinceReferenceDate: (date.secondsSinceReferenceDate).rounded(.down)))
        case .array(let items): return .array(items.map(asXMLKeepsIt))
        case .dictionary(let dict): return .dictionary(PlistDictionary(dict.map { ($0.0, asXMLKeepsIt($0.1)) }))
        default: return value
        }
    }

    @Test func everyReaderAgreesWithCoreFoundationOnDegenerateInput() throws {
        let cases = DegeneratePlistInputs.all
        #expect(Set(cases.map(\.name)).count == cases.count, "case names must be unique")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let paths = try cases.enumerated().map { index, testCase in try folder.write("case_\(index).in", testCase.bytes) }
        let theirs = try Plutil.verdicts(for: paths)
        var report: [String] = []
        for (index, testCase) in cases.enumerated() {
            let ours = Self.ours(testCase.bytes)
            if case .refused(let error) = ours {
                #expect(error.kind != .io && !error.description.contains("\n"),
                        "\(testCase.name): not one clear error line: \(error.description)")
            }
            let documented = Self.intentional[testCase.name]
            switch (ours, theirs[index], documented) {
            case (.accepted(let mine), .accepted(let cf), nil):
                if let cf, Self.asXMLKeepsIt(mine) != cf { report.append("VALUE  \(testCase.name): ours \(mine), CF \(cf)") }
            case (.refused, .refused, nil):
                break
            case (.accepted(let mine), .refused(let why), _):
                report.append("BUG    \(testCase.name): we read \(mine); CF refuses: \(why)")
            case (.refused(let error), .accepted(let cf), nil):
                report.append("STRICT \(testCase.name): we refuse (\(error)); CF reads \(cf.map { "\($0)" } ?? "it")")
            case (.refused, .accepted, .weRefuse?):
                break
            case (.accepted(let mine), .accepted(let cf), .valuesDiffer?):
                if let cf, Self.asXMLKeepsIt(mine) == cf { report.append("STALE  \(testCase.name): documented values differ, but they agree") }
            case (_, _, let documented?):
                report.append("STALE  \(testCase.name): documented as \(documented), but no longer diverges that way")
            }
        }
        #expect(report.isEmpty, "\(report.count) disagreements with plutil:\n\(report.joined(separator: "\n"))")
    }
}

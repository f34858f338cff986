import Foundation
import PlistKit
import SystemSupport
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
        /// plutil crashes on it, so there is no answer to compare with; the reason says what we do.
        case plutilCrashes(String)
    }

    static let intentional: [String: Divergence] = {
        var table: [String: Divergence] = [:]
        let utf32 = Divergence.weRefuse("UTF-32 plists do not occur in practice; one clear error beats a second decoder")
        for bom in ["UTF-32LE BOM", "UTF-32BE BOM"] {
            for what in ["XML", "XML without declaration", "OpenStep", "strings file", "JSON", "white space"] {
                table["any/\(bom) then \(what)"] = utf32
            }
        }
        let wellFormed = Divergence.weRefuse(
            "not well-formed XML 1.0; libxml2 enforces the spec where Core Foundation's own scanner does not")
        for name in [
            "declaration without version", "declaration not first", "declaration twice", "comment before the declaration",
            "character reference to NUL", "control character in string"
        ] {
            table["xml/\(name)"] = wellFormed
        }
        let trailing = Divergence.weRefuse(
            "Core Foundation stops at the first root and ignores the rest; content after it means a concatenated or damaged file")
        for name in ["two plist roots", "two bare values", "text after the root", "element after the root", "plist inside plist"] {
            table["xml/\(name)"] = trailing
        }
        let duplicate = Divergence.weRefuse(
            "Core Foundation keeps the last of two equal keys silently; which one a reader keeps is not defined")
        for name in ["xml/duplicate keys", "openstep/dict duplicate key", "json/duplicate key"] { table[name] = duplicate }
        let strayKey = Divergence.weRefuse("Core Foundation reads a <key> outside a <dict> as a string; it is a structural mistake")
        table["xml/key in array"] = strayKey
        table["xml/key at the root"] = strayKey
        let badDate = Divergence.weRefuse(
            "Core Foundation rolls impossible dates over (month 13 becomes next January) or misreads the year; we refuse them")
        for name in ["month 13", "February 30", "hour 24", "two-digit year", "five-digit year"] { table["xml/date \(name)"] = badDate }
        let badBase64 = Divergence.weRefuse(
            "Core Foundation silently drops what it cannot decode (often everything); we refuse rather than read other bytes")
        for name in [
            "no padding", "no padding after a full group", "one padding where two belong", "over-padded", "padding in the middle",
            "one character", "invalid character", "URL-safe alphabet", "only padding"
        ] {
            table["xml/data \(name)"] = badBase64
        }
        let magic = Divergence.weRefuse(
            "Core Foundation reads a lone 'bplist' header as an OpenStep string; a file starting with the binary magic is a damaged binary plist"
        )
        for name in ["truncated to 6 bytes", "truncated to 7 bytes", "truncated to 8 bytes", "only the magic"] {
            table["binary/\(name)"] = magic
        }
        let version = Divergence.weRefuse(
            "Core Foundation ignores the second version digit; a header claiming another version is not a format we know")
        table["binary/version '01'"] = version
        table["binary/version '0 '"] = version
        table["binary/4-byte integer overlapping the next object"] =
            .weRefuse("overlapping objects are how hostile binary plists alias data; no writer produces them")
        table["binary/set marker"] =
            .plutilCrashes(
                "Core Foundation parses the set, then Foundation crashes bridging it; we read a set as an array (BinaryPlistTests)")
        table["binary/ASCII string with a high byte"] =
            .weRefuse("an ASCII string object holding a byte over 0x7F is damaged; Core Foundation guesses Latin-1")
        table["openstep/block comment at end"] =
            .weRefuse("an unterminated comment means the file was cut short; Core Foundation only skips to the end")
        let nextstep = Divergence.weRefuse(
            "octal escapes over \\177 are NeXTSTEP characters; PlistKit carries no NeXTSTEP table and refuses rather than guess")
        table["openstep/octal escape"] = nextstep
        table["openstep/octal escape high"] = nextstep
        table["openstep/unicode escape without digits"] =
            .weRefuse("Core Foundation turns a \\U with no digits into U+0000; we refuse the broken escape")
        table["openstep/unicode escape lone surrogate"] =
            .weRefuse("Core Foundation turns a lone surrogate into U+FFFD, losing it; we refuse")
        table["openstep/nested depth 513"] =
            .weRefuse("PlistLimits.maxDepth (512) bounds recursion in every reader; Core Foundation's XML and JSON readers stop at 512 too")
        let trailingComma = Divergence.weRefuse("Foundation's JSON reader allows a trailing comma; RFC 8259 does not")
        table["json/trailing comma in object"] = trailingComma
        table["json/trailing comma in array"] = trailingComma
        table["json/number huge integer"] =
            .weRefuse("Foundation turns an integer past 64 bits into an inexact real; we refuse rather than change the number")
        table["json/number Int64 min"] =
            .valuesDiffer("Foundation reads -9223372036854775808 as a real; it is an integer, and we keep it exact")
        return table
    }()

    /// What our reader made of one input.
    enum Outcome {
        case accepted(PlistValue)
        case refused(Diagnostic)
    }

    static func ours(_ bytes: Data) -> Outcome {
        do {
            return .accepted(try PropertyList(data: bytes).value)
        } catch let error as Diagnostic where error.is(PlistProblem.self) {
            return .refused(error)
        } catch {
            return .refused(Diagnostic.plist(.io, "not a Diagnostic: \(error)"))
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
        try withTemporaryFolder { folder in
            let paths = try cases.enumerated().map { index, testCase in try folder.write("case_\(index).in", testCase.bytes) }
            let theirs = try Plutil.verdicts(for: paths)
            var report: [String] = []
            for (index, testCase) in cases.enumerated() {
                let ours = Self.ours(testCase.bytes)
                if case .refused(let error) = ours {
                    #expect(
                        error.plistProblem != .io && !error.description.contains("\n"),
                        "\(testCase.name): not one clear error line: \(error.description)")
                }
                let documented = Self.intentional[testCase.name]
                switch (ours, theirs[index], documented) {
                case (_, .crashed, .plutilCrashes?):
                    break
                case (_, .crashed(let how), _):
                    report.append("CRASH  \(testCase.name): plutil crashed (\(how)); document it or drop the case")
                case (_, _, .plutilCrashes?):
                    report.append("STALE  \(testCase.name): documented as crashing plutil, but it did not")
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
                    if let cf, Self.asXMLKeepsIt(mine) == cf {
                        report.append("STALE  \(testCase.name): documented values differ, but they agree")
                    }
                case (_, _, let documented?):
                    report.append("STALE  \(testCase.name): documented as \(documented), but no longer diverges that way")
                }
            }
            #expect(report.isEmpty, "\(report.count) disagreements with plutil:\n\(report.joined(separator: "\n"))")
        }
    }
}

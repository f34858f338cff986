import Foundation
import TestSupport

/// The lines `openssl asn1parse -inform DER` prints, read for where things lie in the DER: the oracle
/// the stored-signed-attributes tests cut their bytes with.
struct OpenSSLASN1Parse {
    /// One printed element: `  3959:d=5  hl=4 l= 549 cons:      cont [ 0 ]`.
    struct Line {
        var offset: Int
        var depth: Int
        var header: Int
        /// The content length, or nil for `l=inf`.
        var length: Int?
        /// What follows the length (`cons: cont [ 0 ]`, `prim: OBJECT :contentType`).
        var text: String

        /// The whole element's bytes in `der` (header and content), or nil when its length is indefinite.
        func bytes(in der: [UInt8]) -> [UInt8]? {
            guard let length, offset + header + length <= der.count else { return nil }
            return Array(der[offset..<(offset + header + length)])
        }

        /// The content bytes only.
        func content(in der: [UInt8]) -> [UInt8]? {
            guard let length, offset + header + length <= der.count else { return nil }
            return Array(der[(offset + header)..<(offset + header + length)])
        }
    }

    var lines: [Line]

    /// Runs `openssl asn1parse` on the DER file at `path`.
    init(openssl: String, path: String) throws {
        let result = try ProcessResult.run(openssl, ["asn1parse", "-inform", "DER", "-in", path])
        guard result.status == 0 else { throw SetupFailure("openssl asn1parse \(path) failed: \(result.stderrText)") }
        lines = result.stdoutText.split(separator: "\n").compactMap(Self.line)
    }

    private static func line(_ text: Substring) -> Line? {
        func number(after key: String) -> Int? {
            guard let range = text.range(of: key) else { return nil }
            return Int(text[range.upperBound...].drop { $0 == " " }.prefix { $0.isNumber })
        }
        guard let offset = Int(text.drop { $0 == " " }.prefix { $0.isNumber }), let depth = number(after: ":d="),
            let header = number(after: "hl="), let rest = text.range(of: " l=")
        else { return nil }
        let after = text[rest.upperBound...].drop { $0 == " " }
        let length = after.hasPrefix("inf") ? nil : Int(after.prefix { $0.isNumber })
        return Line(
            offset: offset, depth: depth, header: header, length: length,
            text: String(after.drop { $0 != " " }).trimmingCharacters(in: .whitespaces))
    }

    /// The SignerInfo's `[0]` signed attributes: the `cont [ 0 ]` two levels above the contentType attribute's OID.
    var signedAttributes: Line? {
        guard let type = lines.firstIndex(where: { $0.text.contains("OBJECT") && $0.text.hasSuffix(":contentType") }) else { return nil }
        return lines[..<type].last { $0.depth == lines[type].depth - 2 && $0.text.contains("cont [ 0 ]") }
    }

    /// The SignerInfo's signature value: the first OCTET STRING beside the signed attributes, after them.
    var signatureValue: Line? {
        guard let attributes = signedAttributes else { return nil }
        return lines.first { $0.offset > attributes.offset && $0.depth == attributes.depth && $0.text.contains("OCTET STRING") }
    }

    /// The UTCTime value of the signingTime attribute.
    var signingTime: Line? {
        guard let name = lines.firstIndex(where: { $0.text.hasSuffix(":signingTime") }) else { return nil }
        return lines[name...].first { $0.text.contains("UTCTIME") }
    }
}

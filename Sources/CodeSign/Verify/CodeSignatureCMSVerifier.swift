import PlistKit
import SystemSupport

/// Checks of a code signature's CMS against the signature it sits in: the signature verifies over
/// the primary CodeDirectory, the messageDigest is that directory's digest, and Apple's cdhash
/// attributes list exactly the CodeDirectories present.
///
/// Which attributes are required follows the fixtures' eras: every signer since Xcode 7.3 writes the
/// 1.2.840.113635.100.9.1 plist, so it is required when the signature has alternate CodeDirectories
/// (there it is what binds the alternates); the 1.2.840.113635.100.9.2 attribute first appears with
/// Xcode 10-era signers (the Xcode 7.3 and 9.2 fixtures lack it, the Xcode 12 ones have it), so it is
/// checked when present and never required. A signature without signed attributes covers the primary
/// CodeDirectory directly and has no messageDigest; only its alternates then lack what binds them.
public enum CodeSignatureCMSVerifier {
    /// The result of checking one signature: the CMS when it could be read, and the problems found.
    public struct Report: Sendable {
        public var cms: CodeSignatureCMS?
        public var problems: [String]
        /// Whether the signature is ad-hoc (no CMS, or an empty one): there is no signer to check.
        public var isAdHoc: Bool
    }

    /// The CodeDirectories as stored, primary first, then the alternates in slot order.
    static func storedCodeDirectories(_ signature: EmbeddedSignature) -> [(directory: CodeDirectory, bytes: [UInt8])] {
        var out: [(CodeDirectory, [UInt8])] = []
        if let primary = signature.codeDirectory, let bytes = signature.blob(SignatureSlot.codeDirectory) { out.append((primary, bytes)) }
        let alternates = signature.superBlob.entries.filter {
            $0.type >= SignatureSlot.alternateCodeDirectories && $0.type < SignatureSlot.alternateCodeDirectories + 5
        }
        for (directory, entry) in zip(signature.alternateCodeDirectories, alternates) { out.append((directory, entry.bytes)) }
        return out
    }

    /// Reads and checks the CMS of `signature`; every problem is one line without the bundle path.
    public static func verify(_ signature: EmbeddedSignature, limits: PlistLimits = .default) -> Report {
        let directories = storedCodeDirectories(signature)
        guard let primary = directories.first else {
            return Report(cms: nil, problems: ["the signature has no CodeDirectory"], isAdHoc: false)
        }
        let markedAdHoc = primary.directory.flags & CodeDirectory.Flag.adhoc != 0
        guard let blob = signature.signature, !blob.isEmpty else {
            if markedAdHoc { return Report(cms: nil, problems: [], isAdHoc: true) }
            return Report(
                cms: nil, problems: ["the signature has no CMS signature, but its CodeDirectory is not marked ad-hoc"], isAdHoc: true)
        }
        let cms: CodeSignatureCMS
        do {
            cms = try CodeSignatureCMS(cms: blob.cms, content: primary.bytes, limits: limits)
        } catch let error as Diagnostic where error.is(CodeSignProblem.self) {
            return Report(cms: nil, problems: [error.message], isAdHoc: false)
        } catch {
            return Report(cms: nil, problems: ["CMS signature: \(error)"], isAdHoc: false)
        }
        var problems = cms.attributeProblems.map { "CMS signature: \($0)" }
        if markedAdHoc { problems.append("the CodeDirectory is marked ad-hoc but the signature has a CMS signer") }
        if let failure = cms.verificationFailure {
            problems.append("CMS signature does not verify over the CodeDirectory: \(failure)")
        }
        if let contentType = cms.contentType, contentType != "1.2.840.113549.1.7.1" {
            problems.append("CMS signature: contentType is \(contentType), not id-data (1.2.840.113549.1.7.1)")
        }
        problems += messageDigestProblems(cms, primary.bytes)
        problems += cdhashProblems(cms, directories)
        return Report(cms: cms, problems: problems, isAdHoc: false)
    }

    private static func messageDigestProblems(_ cms: CodeSignatureCMS, _ content: [UInt8]) -> [String] {
        guard let type = cms.digestType else {
            return ["CMS signature: the signer's digest algorithm \(cms.digestAlgorithm) is not one a CodeDirectory uses"]
        }
        // Without signed attributes the signature covers the CodeDirectory itself (RFC 5652 allows it; some
        // of Apple's own XPC services are signed so): there is no messageDigest to compare.
        guard cms.hasSignedAttributes else { return [] }
        guard let digest = cms.messageDigest else { return ["CMS signature has no messageDigest attribute"] }
        let expected = Digest.hash(type == .sha256Truncated ? .sha256 : type, content)
        guard digest == expected else {
            return ["CMS signature: messageDigest \(digest.hexString) is not the \(type) of the CodeDirectory (\(expected.hexString))"]
        }
        return []
    }

    private static func cdhashProblems(_ cms: CodeSignatureCMS, _ directories: [(directory: CodeDirectory, bytes: [UInt8])]) -> [String] {
        var problems: [String] = []
        let truncated = directories.map { Array(Digest.hash($0.directory.hashType, $0.bytes).prefix(20)) }
        if let listed = cms.cdhashesPlist {
            if listed != truncated {
                problems.append(
                    "CMS signature: cdhashes plist (\(CodeSignatureCMS.cdhashesPlistOID)) lists \(describe(listed)), "
                        + "the CodeDirectories' cdhashes are \(describe(truncated))")
            }
        } else if directories.count > 1 {
            problems.append(
                "CMS signature has no cdhashes plist attribute (\(CodeSignatureCMS.cdhashesPlistOID)) though the signature has "
                    + "\(directories.count) CodeDirectories")
        }
        if let listed = cms.cdhashes {
            let expected = directories.map { entry -> CodeSignatureCMS.FullCDHash in
                let type: HashType = entry.directory.hashType == .sha256Truncated ? .sha256 : entry.directory.hashType
                return CodeSignatureCMS.FullCDHash(algorithm: LibCrypto.oid(of: type), digest: Digest.hash(type, entry.bytes))
            }
            let key = { (entry: CodeSignatureCMS.FullCDHash) in "\(entry.algorithm):\(entry.digest.hexString)" }
            if listed.map(key).sorted() != expected.map(key).sorted() {
                problems.append(
                    "CMS signature: cdhashes attribute (\(CodeSignatureCMS.cdhashesOID)) lists \(listed.map(key).sorted().joined(separator: ", ")), "
                        + "the CodeDirectories' hashes are \(expected.map(key).sorted().joined(separator: ", "))")
            }
        }
        return problems
    }

    private static func describe(_ hashes: [[UInt8]]) -> String {
        hashes.isEmpty ? "nothing" : hashes.map(\.hexString).joined(separator: ", ")
    }
}

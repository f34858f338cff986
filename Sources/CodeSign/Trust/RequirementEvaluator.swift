import PlistKit

/// What a code requirement is evaluated against: the code's identifier and cdhashes, its certificate
/// chain (leaf first, anchor last), and its Info.plist and entitlements where known.
public struct RequirementContext: Sendable {
    public var identifier: String?
    /// Every CodeDirectory's cdhash (20 bytes).
    public var cdhashes: [[UInt8]]
    /// The signer's chain, leaf first and anchor (root) last, as `certificate N` numbers it.
    public var chain: [CertificateInfo]
    public var info: PlistDictionary?
    public var entitlements: PlistDictionary?

    public init(
        identifier: String?, cdhashes: [[UInt8]], chain: [CertificateInfo], info: PlistDictionary? = nil,
        entitlements: PlistDictionary? = nil
    ) {
        self.identifier = identifier
        self.cdhashes = cdhashes
        self.chain = chain
        self.info = info
        self.entitlements = entitlements
    }

    /// The chain from `leaf` up through `certificates` (each certificate's issuer found by subject),
    /// ending at a self-signed certificate or where no issuer is found.
    public static func chain(from leaf: CertificateInfo, among certificates: [CertificateInfo]) -> [CertificateInfo] {
        var chain = [leaf]
        while let last = chain.last, last.issuer != last.subject, chain.count <= certificates.count,
            let issuer = certificates.first(where: { $0.subject == last.issuer && !chain.contains($0) })
        {
            chain.append(issuer)
        }
        return chain
    }

    /// The certificate `certificate <slot>` names: 0 the leaf, counting up towards the anchor; -1 the
    /// anchor, counting down towards the leaf.
    func certificate(_ slot: Int32) -> CertificateInfo? {
        let index = slot >= 0 ? Int(slot) : chain.count + Int(slot)
        return chain.indices.contains(index) ? chain[index] : nil
    }
}

/// The outcome of evaluating a requirement: it holds, it does not, or it uses something this
/// evaluator cannot judge (named), in which case nothing is claimed.
public enum RequirementEvaluation: Sendable, Equatable {
    case satisfied
    case notSatisfied
    case undetermined(String)
}

/// Evaluates code requirements (`designated => …`) as the requirement language defines them: the
/// identifier, cdhashes, certificate hashes, subject fields and extensions by OID, Info.plist and
/// entitlement values, `anchor apple generic` (the chain ends in Apple Root CA, pinned by its
/// SHA-256), combined with `and`, `or` and `!` in three-valued logic.
public enum RequirementEvaluator {
    public static func evaluate(_ expression: RequirementExpression, in context: RequirementContext) -> RequirementEvaluation {
        switch expression {
        case .always: return .satisfied
        case .never: return .notSatisfied
        case .identifier(let identifier): return verdict(context.identifier.map { Array($0.utf8) == identifier } ?? false)
        case .cdhash(let hash): return verdict(context.cdhashes.contains(hash))
        case .anchorAppleGeneric:
            return verdict(context.certificate(RequirementExpression.anchorSlot)?.sha256 == CertificateChain.appleRootCASHA256)
        case .anchorHash(let slot, let hash): return verdict(context.certificate(slot)?.sha1 == hash)
        case .certificateField(let slot, let field, let match):
            guard let certificate = context.certificate(slot) else { return .notSatisfied }
            guard let value = subjectField(String(decoding: field, as: UTF8.self), of: certificate) else {
                return .undetermined("certificate field \(String(decoding: field, as: UTF8.self))")
            }
            return compare(value.map { Array($0.utf8) }, match)
        case .certificateGeneric(let slot, let oid, let match):
            guard let certificate = context.certificate(slot) else { return .notSatisfied }
            switch match {
            case .exists: return verdict(certificate.hasExtension(oid: oid))
            case .absent: return verdict(!certificate.hasExtension(oid: oid))
            default: return .undetermined("a certificate extension's value")
            }
        case .infoKeyValue(let key, let value):
            return plistField(context.info, key, .equal(value), what: "Info.plist")
        case .infoKeyField(let key, let match): return plistField(context.info, key, match, what: "Info.plist")
        case .entitlementField(let key, let match): return plistField(context.entitlements, key, match, what: "entitlements")
        case .and(let left, let right):
            let (a, b) = (evaluate(left, in: context), evaluate(right, in: context))
            if a == .notSatisfied || b == .notSatisfied { return .notSatisfied }
            if case .undetermined = a { return a }
            return b
        case .or(let left, let right):
            let (a, b) = (evaluate(left, in: context), evaluate(right, in: context))
            if a == .satisfied || b == .satisfied { return .satisfied }
            if case .undetermined = a { return a }
            return b
        case .not(let inner):
            switch evaluate(inner, in: context) {
            case .satisfied: return .notSatisfied
            case .notSatisfied: return .satisfied
            case let undetermined: return undetermined
            }
        default:
            return .undetermined(RequirementText.text(of: expression))
        }
    }

    static func verdict(_ holds: Bool) -> RequirementEvaluation { holds ? .satisfied : .notSatisfied }

    /// `subject.CN` and its kin; nil for a field this evaluator does not know (not the same as absent).
    static func subjectField(_ field: String, of certificate: CertificateInfo) -> String?? {
        switch field {
        case "subject.CN": return .some(certificate.commonName)
        case "subject.OU": return .some(certificate.organizationalUnit)
        case "subject.O": return .some(certificate.organization)
        default: return nil
        }
    }

    static func plistField(_ dictionary: PlistDictionary?, _ key: [UInt8], _ match: RequirementMatch, what: String) -> RequirementEvaluation
    {
        guard let dictionary else { return .undetermined("the \(what)") }
        let value = dictionary[String(decoding: key, as: UTF8.self)]
        switch value {
        case nil: return compare(nil, match)
        case .string(let text)?: return compare(Array(text.utf8), match)
        case .bool(let flag)?: return compare(Array((flag ? "true" : "false").utf8), match)
        default: return match == .exists ? .satisfied : .undetermined("a non-string \(what) value")
        }
    }

    /// `value` (nil when absent) against `match`, comparing bytes as the requirement language compares strings.
    static func compare(_ value: [UInt8]?, _ match: RequirementMatch) -> RequirementEvaluation {
        switch match {
        case .exists: return verdict(value != nil)
        case .absent: return verdict(value == nil)
        default: break
        }
        guard let value else { return .notSatisfied }
        switch match {
        case .equal(let other): return verdict(value == other)
        case .contains(let other): return verdict(other.isEmpty || value.indices.contains { value[$0...].starts(with: other) })
        case .beginsWith(let other): return verdict(value.starts(with: other))
        case .endsWith(let other): return verdict(value.count >= other.count && Array(value.suffix(other.count)) == other)
        case .lessThan(let other): return verdict(value.lexicographicallyPrecedes(other))
        case .greaterThan(let other): return verdict(other.lexicographicallyPrecedes(value))
        case .lessEqual(let other): return verdict(!other.lexicographicallyPrecedes(value))
        case .greaterEqual(let other): return verdict(!value.lexicographicallyPrecedes(other))
        default: return .undetermined("a date comparison")
        }
    }
}

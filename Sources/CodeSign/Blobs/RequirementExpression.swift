/// A code requirement's expression tree, as the requirement language describes it and the compiled
/// form (`Requirement`, magic `0xfade0c00`) stores it: opcodes in prefix order, strings and hashes
/// as length-prefixed data padded to 4 bytes.
///
/// Strings are kept as bytes because the compiled form may hold any bytes; ``RequirementText``
/// prints them quoted, bare or in hex as `codesign -d -r-` does.
public indirect enum RequirementExpression: Sendable, Equatable {
    /// Whether the expression tests an entitlement anywhere.
    public var usesEntitlements: Bool {
        switch self {
        case .entitlementField: return true
        case .and(let left, let right), .or(let left, let right): return left.usesEntitlements || right.usesEntitlements
        case .not(let inner): return inner.usesEntitlements
        default: return false
        }
    }

    case never
    case always
    case identifier([UInt8])
    case anchorApple
    case anchorAppleGeneric
    /// `certificate <slot> = H"…"`: the SHA-1 of a certificate in the chain.
    case anchorHash(slot: Int32, hash: [UInt8])
    /// The legacy `info[key] = value` form.
    case infoKeyValue(key: [UInt8], value: [UInt8])
    case and(RequirementExpression, RequirementExpression)
    case or(RequirementExpression, RequirementExpression)
    case cdhash([UInt8])
    case not(RequirementExpression)
    case infoKeyField(key: [UInt8], match: RequirementMatch)
    case certificateField(slot: Int32, field: [UInt8], match: RequirementMatch)
    case certificateTrusted(slot: Int32)
    case anchorTrusted
    /// `certificate <slot>[field.<oid>]`: an extension of a certificate, by OID (DER body bytes).
    case certificateGeneric(slot: Int32, oid: [UInt8], match: RequirementMatch)
    case entitlementField(key: [UInt8], match: RequirementMatch)
    case certificatePolicy(slot: Int32, oid: [UInt8], match: RequirementMatch)
    case namedAnchor([UInt8])
    case namedCode([UInt8])
    case platform(UInt32)
    case notarized
    case certificateFieldDate(slot: Int32, oid: [UInt8], match: RequirementMatch)
    case legacyDeveloperID

    /// The certificate slot of the leaf, and of the anchor (root).
    public static let leafSlot: Int32 = 0
    public static let anchorSlot: Int32 = -1

    /// Opcodes of the compiled form.
    enum Opcode: UInt32 {
        case never = 0
        case always = 1
        case identifier = 2
        case anchorApple = 3
        case anchorHash = 4
        case infoKeyValue = 5
        case and = 6
        case or = 7
        case cdhash = 8
        case not = 9
        case infoKeyField = 10
        case certificateField = 11
        case certificateTrusted = 12
        case anchorTrusted = 13
        case certificateGeneric = 14
        case anchorAppleGeneric = 15
        case entitlementField = 16
        case certificatePolicy = 17
        case namedAnchor = 18
        case namedCode = 19
        case platform = 20
        case notarized = 21
        case certificateFieldDate = 22
        case legacyDeveloperID = 23
    }

    /// Flag bits of an opcode word (`opGenericFalse`, `opGenericSkip`), which this model does not keep.
    static let flagMask: UInt32 = 0xff00_0000
}

/// How a field's value is compared (`matchExists`, `matchEqual`, …).
public enum RequirementMatch: Sendable, Equatable {
    case exists
    case equal([UInt8])
    case contains([UInt8])
    case beginsWith([UInt8])
    case endsWith([UInt8])
    case lessThan([UInt8])
    case greaterThan([UInt8])
    case lessEqual([UInt8])
    case greaterEqual([UInt8])
    /// Date comparisons, with the time as stored (seconds since 2001-01-01, 8 bytes).
    case on(Int64)
    case before(Int64)
    case after(Int64)
    case onOrBefore(Int64)
    case onOrAfter(Int64)
    case absent

    var code: UInt32 {
        switch self {
        case .exists: return 0
        case .equal: return 1
        case .contains: return 2
        case .beginsWith: return 3
        case .endsWith: return 4
        case .lessThan: return 5
        case .greaterThan: return 6
        case .lessEqual: return 7
        case .greaterEqual: return 8
        case .on: return 9
        case .before: return 10
        case .after: return 11
        case .onOrBefore: return 12
        case .onOrAfter: return 13
        case .absent: return 14
        }
    }
}

import SystemSupport

/// One compiled code requirement (magic `0xfade0c00`): a kind (1, the expression form) and an expression.
public struct Requirement: Sendable, Equatable, CustomStringConvertible {
    /// The expression form, the only kind in use.
    public static let expressionKind: UInt32 = 1
    /// Nesting deeper than any real requirement; bounds the recursion a hostile blob causes.
    static let maxDepth = 64

    public var kind: UInt32
    public var expression: RequirementExpression

    public init(_ expression: RequirementExpression, kind: UInt32 = Requirement.expressionKind) {
        self.kind = kind
        self.expression = expression
    }

    /// Parses the requirement blob in `bytes`.
    public init(bytes: [UInt8]) throws {
        try self.init(reading: ByteReader(bytes))
    }

    init(reading whole: ByteReader) throws {
        let header = try BlobHeader(whole, at: 0, expecting: BlobMagic.requirement, what: "requirement")
        let reader = try whole.sub(0, header.length, what: "requirement")
        kind = try reader.u32be(8, what: "requirement kind")
        guard kind == Requirement.expressionKind else {
            throw Diagnostic.codeSign(
                .unsupported, at: reader.base + 8, "requirement kind \(kind) is not supported (1, the expression form, expected)")
        }
        var decoder = RequirementDecoder(reader: reader, position: 12)
        expression = try decoder.expression(depth: 0)
        guard decoder.position == header.length else {
            throw Diagnostic.codeSign(
                at:
                    reader.base + decoder.position, "requirement has \(header.length - decoder.position) bytes after its expression")
        }
    }

    /// The blob's bytes.
    public func bytes() -> [UInt8] {
        var body = ByteWriter()
        RequirementEncoder.encode(expression, into: &body)
        var out = ByteWriter()
        out.u32be(BlobMagic.requirement)
        out.u32be(UInt32(truncatingIfNeeded: 12 + body.bytes.count))
        out.u32be(kind)
        out.append(body.bytes)
        return out.bytes
    }

    /// The requirement in the requirement language, as `codesign -d -r-` prints it.
    public var description: String { RequirementText.text(of: expression) }
}

/// Reads the prefix-ordered opcodes of a requirement.
struct RequirementDecoder {
    let reader: ByteReader
    var position: Int

    mutating func word() throws -> UInt32 {
        let value = try reader.u32be(position, what: "requirement opcode or operand")
        position += 4
        return value
    }

    mutating func data() throws -> [UInt8] {
        let start = position
        let length = Int(try word())
        let bytes = try reader.slice(position, length, what: "requirement data at byte \(start)")
        position += (length + 3) & ~3
        _ = try reader.end(position, 0, what: "requirement data padding")
        return bytes
    }

    mutating func slot() throws -> Int32 { Int32(bitPattern: try word()) }

    mutating func match() throws -> RequirementMatch {
        let at = position
        switch try word() {
        case 0: return .exists
        case 1: return .equal(try data())
        case 2: return .contains(try data())
        case 3: return .beginsWith(try data())
        case 4: return .endsWith(try data())
        case 5: return .lessThan(try data())
        case 6: return .greaterThan(try data())
        case 7: return .lessEqual(try data())
        case 8: return .greaterEqual(try data())
        case 9: return .on(try time())
        case 10: return .before(try time())
        case 11: return .after(try time())
        case 12: return .onOrBefore(try time())
        case 13: return .onOrAfter(try time())
        case 14: return .absent
        case let other: throw Diagnostic.codeSign(at: reader.base + at, "requirement match operation \(other) is unknown")
        }
    }

    mutating func time() throws -> Int64 {
        let high = UInt64(try word()), low = UInt64(try word())
        return Int64(bitPattern: high << 32 | low)
    }

    mutating func expression(depth: Int) throws -> RequirementExpression {
        guard depth < Requirement.maxDepth else {
            throw Diagnostic.codeSign(at: reader.base + position, "requirement nests deeper than \(Requirement.maxDepth) levels")
        }
        let at = position
        let raw = try word()
        guard let op = RequirementExpression.Opcode(rawValue: raw & ~RequirementExpression.flagMask),
            raw & RequirementExpression.flagMask == 0
        else {
            throw Diagnostic.codeSign(at: reader.base + at, "requirement opcode 0x\(String(raw, radix: 16)) is unknown")
        }
        switch op {
        case .never: return .never
        case .always: return .always
        case .identifier: return .identifier(try data())
        case .anchorApple: return .anchorApple
        case .anchorAppleGeneric: return .anchorAppleGeneric
        case .anchorHash: return .anchorHash(slot: try slot(), hash: try data())
        case .infoKeyValue: return .infoKeyValue(key: try data(), value: try data())
        case .and:
            let left = try expression(depth: depth + 1)
            return .and(left, try expression(depth: depth + 1))
        case .or:
            let left = try expression(depth: depth + 1)
            return .or(left, try expression(depth: depth + 1))
        case .cdhash: return .cdhash(try data())
        case .not: return .not(try expression(depth: depth + 1))
        case .infoKeyField: return .infoKeyField(key: try data(), match: try match())
        case .certificateField: return .certificateField(slot: try slot(), field: try data(), match: try match())
        case .certificateTrusted: return .certificateTrusted(slot: try slot())
        case .anchorTrusted: return .anchorTrusted
        case .certificateGeneric: return .certificateGeneric(slot: try slot(), oid: try data(), match: try match())
        case .entitlementField: return .entitlementField(key: try data(), match: try match())
        case .certificatePolicy: return .certificatePolicy(slot: try slot(), oid: try data(), match: try match())
        case .namedAnchor: return .namedAnchor(try data())
        case .namedCode: return .namedCode(try data())
        case .platform: return .platform(try word())
        case .notarized: return .notarized
        case .certificateFieldDate: return .certificateFieldDate(slot: try slot(), oid: try data(), match: try match())
        case .legacyDeveloperID: return .legacyDeveloperID
        }
    }
}

/// Writes the compiled form of an expression.
enum RequirementEncoder {
    static func encode(_ expression: RequirementExpression, into out: inout ByteWriter) {
        func op(_ code: RequirementExpression.Opcode) { out.u32be(code.rawValue) }
        func data(_ bytes: [UInt8]) {
            out.u32be(UInt32(truncatingIfNeeded: bytes.count))
            out.append(bytes)
            out.pad(to: 4)
        }
        func slot(_ value: Int32) { out.u32be(UInt32(bitPattern: value)) }
        func match(_ value: RequirementMatch) {
            out.u32be(value.code)
            switch value {
            case .exists, .absent: break
            case .equal(let d), .contains(let d), .beginsWith(let d), .endsWith(let d), .lessThan(let d), .greaterThan(let d),
                .lessEqual(let d), .greaterEqual(let d):
                data(d)
            case .on(let t), .before(let t), .after(let t), .onOrBefore(let t), .onOrAfter(let t):
                out.u64be(UInt64(bitPattern: t))
            }
        }
        switch expression {
        case .never: op(.never)
        case .always: op(.always)
        case .identifier(let d): op(.identifier); data(d)
        case .anchorApple: op(.anchorApple)
        case .anchorAppleGeneric: op(.anchorAppleGeneric)
        case .anchorHash(let s, let h): op(.anchorHash); slot(s); data(h)
        case .infoKeyValue(let k, let v): op(.infoKeyValue); data(k); data(v)
        case .and(let l, let r): op(.and); encode(l, into: &out); encode(r, into: &out)
        case .or(let l, let r): op(.or); encode(l, into: &out); encode(r, into: &out)
        case .cdhash(let h): op(.cdhash); data(h)
        case .not(let e): op(.not); encode(e, into: &out)
        case .infoKeyField(let k, let m): op(.infoKeyField); data(k); match(m)
        case .certificateField(let s, let f, let m): op(.certificateField); slot(s); data(f); match(m)
        case .certificateTrusted(let s): op(.certificateTrusted); slot(s)
        case .anchorTrusted: op(.anchorTrusted)
        case .certificateGeneric(let s, let o, let m): op(.certificateGeneric); slot(s); data(o); match(m)
        case .entitlementField(let k, let m): op(.entitlementField); data(k); match(m)
        case .certificatePolicy(let s, let o, let m): op(.certificatePolicy); slot(s); data(o); match(m)
        case .namedAnchor(let n): op(.namedAnchor); data(n)
        case .namedCode(let n): op(.namedCode); data(n)
        case .platform(let p): op(.platform); out.u32be(p)
        case .notarized: op(.notarized)
        case .certificateFieldDate(let s, let o, let m): op(.certificateFieldDate); slot(s); data(o); match(m)
        case .legacyDeveloperID: op(.legacyDeveloperID)
        }
    }
}

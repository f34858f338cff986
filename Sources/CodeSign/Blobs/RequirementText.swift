import Foundation

/// Prints requirement expressions in the requirement language, as `codesign -d -r-` shows them:
/// `identifier "com.x" and anchor apple generic and certificate leaf[subject.CN] = "…"`.
///
/// Data prints bare when it is a simple word (letters and digits, and dots inside a field name,
/// not starting with a digit, not a keyword), quoted when printable, else as `0x` hex; hashes as
/// `H"…"`; `and` binds tighter than `or`, and parentheses appear only where needed.
public enum RequirementText {
    /// How tightly the surrounding context binds.
    enum Level: Int, Comparable {
        case primary = 0
        case and = 1
        case or = 2
        case top = 3
        static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Words of the language, which must be quoted when they are data.
    static let keywords: Set<String> = [
        "guest", "host", "designated", "library", "plugin", "or", "and", "always", "true", "never", "false", "identifier",
        "cdhash", "anchor", "apple", "generic", "certificate", "cert", "trusted", "info", "entitlement", "exists", "leaf",
        "root", "notarized", "legacy", "platform", "absent", "H"
    ]

    /// The text of `expression`.
    public static func text(of expression: RequirementExpression) -> String {
        var out = ""
        write(expression, level: .top, to: &out)
        return out
    }

    static func write(_ expression: RequirementExpression, level: Level, to out: inout String) {
        switch expression {
        case .never: out += "never"
        case .always: out += "always"
        case .identifier(let d): out += "identifier " + data(d)
        case .anchorApple: out += "anchor apple"
        case .anchorAppleGeneric: out += "anchor apple generic"
        case .anchorHash(let slot, let hash): out += "certificate " + slotName(slot) + " = " + hashText(hash)
        case .infoKeyValue(let key, let value): out += "info[" + data(key, dotOkay: true) + "] = " + data(value)
        case .and(let left, let right):
            if level < .and { out += "(" }
            write(left, level: .and, to: &out)
            out += " and "
            write(right, level: .and, to: &out)
            if level < .and { out += ")" }
        case .or(let left, let right):
            if level < .or { out += "(" }
            write(left, level: .or, to: &out)
            out += " or "
            write(right, level: .or, to: &out)
            if level < .or { out += ")" }
        case .cdhash(let hash): out += "cdhash " + hashText(hash)
        case .not(let inner):
            out += "! "
            write(inner, level: .primary, to: &out)
        case .infoKeyField(let key, let m): out += "info[" + data(key, dotOkay: true) + "]" + match(m)
        case .certificateField(let slot, let field, let m):
            out += "certificate " + slotName(slot) + "[" + data(field, dotOkay: true) + "]" + match(m)
        case .certificateTrusted(let slot): out += "certificate " + slotName(slot) + " trusted"
        case .anchorTrusted: out += "anchor trusted"
        case .certificateGeneric(let slot, let oid, let m):
            out += "certificate " + slotName(slot) + "[field." + oidText(oid) + "]" + match(m)
        case .entitlementField(let key, let m): out += "entitlement[" + data(key, dotOkay: true) + "]" + match(m)
        case .certificatePolicy(let slot, let oid, let m):
            out += "certificate " + slotName(slot) + "[policy." + oidText(oid) + "]" + match(m)
        case .namedAnchor(let name): out += "anchor " + data(name)
        case .namedCode(let name): out += "(" + data(name) + ")"
        case .platform(let value): out += "platform = \(value)"
        case .notarized: out += "notarized"
        case .certificateFieldDate(let slot, let oid, let m):
            out += "certificate " + slotName(slot) + "[timestamp." + oidText(oid) + "]" + match(m)
        case .legacyDeveloperID: out += "legacy"
        }
    }

    static func slotName(_ slot: Int32) -> String {
        switch slot {
        case RequirementExpression.leafSlot: return "leaf"
        case RequirementExpression.anchorSlot: return "root"
        default: return "\(slot)"
        }
    }

    static func match(_ value: RequirementMatch) -> String {
        switch value {
        case .exists: return " /* exists */"
        case .absent: return " absent"
        case .equal(let d): return " = " + data(d)
        case .contains(let d): return " ~ " + data(d)
        case .beginsWith(let d): return " = " + data(d) + "*"
        case .endsWith(let d): return " = *" + data(d)
        case .lessThan(let d): return " < " + data(d)
        case .greaterThan(let d): return " > " + data(d)
        case .lessEqual(let d): return " <= " + data(d)
        case .greaterEqual(let d): return " >= " + data(d)
        case .on(let t): return " = timestamp \(t)"
        case .before(let t): return " < timestamp \(t)"
        case .after(let t): return " > timestamp \(t)"
        case .onOrBefore(let t): return " <= timestamp \(t)"
        case .onOrAfter(let t): return " >= timestamp \(t)"
        }
    }

    static func hashText(_ bytes: [UInt8]) -> String { "H\"" + bytes.hexString + "\"" }

    /// Bare, quoted or hex, as described on the type.
    static func data(_ bytes: [UInt8], dotOkay: Bool = false) -> String {
        var simple = !bytes.isEmpty
        for (index, byte) in bytes.enumerated() {
            let isAlnum = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
            if isAlnum || (byte == 0x2e && dotOkay) {
                if index == 0 && byte >= 0x30 && byte <= 0x39 { simple = false }
            } else if byte >= 0x20 && byte < 0x7f {
                simple = false
            } else if byte >= 0x80, String(validating: bytes, as: UTF8.self) != nil {
                simple = false
            } else {
                return "0x" + bytes.hexString
            }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if simple && !keywords.contains(text) { return text }
        var quoted = "\""
        for character in text {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }

    /// The dotted form of an OID's DER body (`1.2.840.113635.100.6.2.1`); hex when it is malformed.
    static func oidText(_ bytes: [UInt8]) -> String {
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        var pending = false
        for byte in bytes {
            guard value >> 57 == 0 else { return "0x" + bytes.hexString }
            value = value << 7 | UInt64(byte & 0x7f)
            pending = true
            if byte & 0x80 == 0 {
                if arcs.isEmpty {
                    let first: UInt64 = value < 40 ? 0 : (value < 80 ? 1 : 2)
                    arcs.append(first)
                    arcs.append(value - first * 40)
                } else {
                    arcs.append(value)
                }
                value = 0
                pending = false
            }
        }
        guard !pending, !arcs.isEmpty else { return "0x" + bytes.hexString }
        return arcs.map(String.init).joined(separator: ".")
    }
}

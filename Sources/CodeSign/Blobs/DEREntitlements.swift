import PlistKit
import SystemSupport

/// The DER form of entitlements that iOS 15 and later read, in the two layouts Apple's signer has
/// written:
///
/// - ``Layout/current`` (Xcode 13 and later): `[APPLICATION 16] { INTEGER 1, dictionary }`, where a
///   dictionary is `[CONTEXT 16]` holding `SEQUENCE { UTF8String key, value }` sorted by key (UTF-8
///   bytes), and a boolean's true is `0xFF`, as DER requires.
/// - ``Layout/bareSet`` (Xcode 12.5): the dictionary alone, as a `SET` of the same pairs in DER
///   order (sorted by their encodings), and a boolean's true is `0x01`.
///
/// In both, an array is a `SEQUENCE`, a string a `UTF8String` and an integer an `INTEGER`; data,
/// dates and reals have no DER form. Reading accepts either layout; signing writes the current one.
public enum DEREntitlements {
    /// How the entitlements are laid out.
    public enum Layout: Sendable, Equatable {
        /// `[APPLICATION 16] { INTEGER 1, [CONTEXT 16] { … } }`, what Xcode writes today.
        case current
        /// A bare `SET` of pairs, what Xcode 12.5 wrote.
        case bareSet
    }

    static let boolean: UInt8 = 0x01
    static let integer: UInt8 = 0x02
    static let utf8String: UInt8 = 0x0c
    static let sequence: UInt8 = 0x30
    static let set: UInt8 = 0x31
    /// `[CONTEXT 16]`, constructed: a dictionary in the current layout.
    static let contextDictionary: UInt8 = 0xb0
    /// `[APPLICATION 16]`, constructed: the current layout's outer wrapper.
    static let applicationWrapper: UInt8 = 0x70
    /// The version the current layout's wrapper holds.
    static let currentVersion: Int64 = 1
    /// Nesting deeper than real entitlements; bounds the recursion hostile input causes.
    static let maxDepth = 32

    /// Encodes `value` (a dictionary, usually) in `layout`.
    public static func encode(_ value: PlistValue, layout: Layout = .current) throws -> [UInt8] {
        var out: [UInt8] = []
        switch layout {
        case .current:
            var content: [UInt8] = []
            element(integer, integerContent(currentVersion), into: &content)
            try encode(value, layout: layout, into: &content)
            element(applicationWrapper, content, into: &out)
        case .bareSet:
            try encode(value, layout: layout, into: &out)
        }
        return out
    }

    /// The layout of DER entitlements `bytes`, judged by their first tag; nil when it is neither.
    public static func layout(of bytes: [UInt8]) -> Layout? {
        switch bytes.first {
        case applicationWrapper: return .current
        case set: return .bareSet
        default: return nil
        }
    }

    static func encode(_ value: PlistValue, layout: Layout, into out: inout [UInt8]) throws {
        switch value {
        case .bool(let flag): element(boolean, [flag ? (layout == .current ? 0xff : 1) : 0], into: &out)
        case .string(let text): element(utf8String, Array(text.utf8), into: &out)
        case .integer(let number):
            guard !number.isUnsignedHigh else {
                throw Diagnostic.codeSign("entitlement integer \(number) does not fit DER entitlements", location: "entitlements")
            }
            element(integer, integerContent(Int64(bitPattern: number.bits)), into: &out)
        case .array(let items):
            var content: [UInt8] = []
            for item in items { try encode(item, layout: layout, into: &content) }
            element(sequence, content, into: &out)
        case .dictionary(let dictionary):
            var pairs: [(key: [UInt8], encoded: [UInt8])] = []
            for (key, item) in dictionary {
                var pair: [UInt8] = []
                element(utf8String, Array(key.utf8), into: &pair)
                try encode(item, layout: layout, into: &pair)
                var wrapped: [UInt8] = []
                element(sequence, pair, into: &wrapped)
                pairs.append((Array(key.utf8), wrapped))
            }
            switch layout {
            case .current:
                pairs.sort { $0.key.lexicographicallyPrecedes($1.key) }
                element(contextDictionary, pairs.flatMap(\.encoded), into: &out)
            case .bareSet:
                pairs.sort { $0.encoded.lexicographicallyPrecedes($1.encoded) }
                element(set, pairs.flatMap(\.encoded), into: &out)
            }
        default:
            throw Diagnostic.codeSign(
                "entitlements hold \(value.kindWithArticle), which DER entitlements cannot carry", location: "entitlements")
        }
    }

    static func element(_ tag: UInt8, _ content: [UInt8], into out: inout [UInt8]) {
        out.append(tag)
        let length = content.count
        if length < 0x80 {
            out.append(UInt8(length))
        } else {
            var bytes: [UInt8] = []
            var rest = length
            while rest > 0 {
                bytes.insert(UInt8(rest & 0xff), at: 0)
                rest >>= 8
            }
            out.append(0x80 | UInt8(bytes.count))
            out.append(contentsOf: bytes)
        }
        out.append(contentsOf: content)
    }

    static func integerContent(_ value: Int64) -> [UInt8] {
        var bytes = withUnsafeBytes(of: value.bigEndian) { Array($0) }
        while bytes.count > 1, (bytes[0] == 0 && bytes[1] & 0x80 == 0) || (bytes[0] == 0xff && bytes[1] & 0x80 != 0) {
            bytes.removeFirst()
        }
        return bytes
    }
}

import Foundation

/// One property-list value: the model every codec reads into and writes from.
///
/// Equality is semantic: dictionaries compare regardless of key order, reals
/// compare by bit pattern (so `nan == nan` and `0.0 != -0.0`), strings compare
/// by their exact Unicode scalars (no canonical-equivalence folding), and dates
/// compare by their exact seconds since 2001-01-01.
public enum PlistValue: Sendable {
    case string(String)
    case integer(PlistInteger)
    case real(Double)
    case bool(Bool)
    case date(PlistDate)
    case data(Data)
    case array([PlistValue])
    case dictionary(PlistDictionary)
    /// A keyed-archiver object reference; only the binary format can hold it.
    case uid(UInt64)

    /// The name of the value's kind as plist tools print it (`string`, `dict`, …).
    public var kindName: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .real: return "real"
        case .bool: return "bool"
        case .date: return "date"
        case .data: return "data"
        case .array: return "array"
        case .dictionary: return "dict"
        case .uid: return "uid"
        }
    }

    /// The kind's name with its article, for messages: "an integer", "a string".
    public var kindWithArticle: String { PlistValue.withArticle(kindName) }

    /// "an integer", "an array", "a dict": the article `kind` takes.
    public static func withArticle(_ kind: String) -> String {
        (["integer", "array", "uid"].contains(kind) ? "an " : "a ") + kind
    }

    /// Whether the value holds other values (array or dictionary).
    public var isContainer: Bool {
        switch self {
        case .array, .dictionary: return true
        default: return false
        }
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var dictionaryValue: PlistDictionary? {
        if case .dictionary(let d) = self { return d }
        return nil
    }

    public var arrayValue: [PlistValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var integerValue: PlistInteger? {
        if case .integer(let i) = self { return i }
        return nil
    }
}

extension PlistValue: Equatable {
    public static func == (lhs: PlistValue, rhs: PlistValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): return a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case (.integer(let a), .integer(let b)): return a == b
        case (.real(let a), .real(let b)): return a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
        case (.bool(let a), .bool(let b)): return a == b
        case (.date(let a), .date(let b)): return a == b
        case (.data(let a), .data(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.dictionary(let a), .dictionary(let b)): return a == b
        case (.uid(let a), .uid(let b)): return a == b
        default: return false
        }
    }
}

extension PlistValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(PlistInteger(value)) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: PlistValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, PlistValue)...) {
        var dict = PlistDictionary()
        for (key, value) in elements { dict[key] = value }
        self = .dictionary(dict)
    }
}

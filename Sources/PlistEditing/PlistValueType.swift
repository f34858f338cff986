import Foundation
import PlistKit
import SystemSupport

/// The kinds of value `plist set --type` accepts, and how text becomes each of them.
public enum PlistValueType: String, CaseIterable, Sendable {
    case string, integer, real, bool, date, data, array, dict, json

    /// The type of an existing value, so `set` keeps it when no `--type` is given.
    public init?(of value: PlistValue) {
        switch value {
        case .string: self = .string
        case .integer: self = .integer
        case .real: self = .real
        case .bool: self = .bool
        case .date: self = .date
        case .data: self = .data
        case .array: self = .array
        case .dictionary: self = .dict
        case .uid: return nil
        }
    }

    /// Converts command-line text to a value of this type.
    ///
    /// `bool` takes true/false/yes/no/1/0; `date` ISO 8601; `data` base64; `array` and `dict`
    /// an empty container without text, or JSON of that kind; `json` any JSON value, read with `limits`.
    public func parse(_ text: String?, limits: PlistLimits) throws -> PlistValue {
        func bad(_ expectation: String) -> Diagnostic {
            Diagnostic.plist(.unrepresentable, "'\(text ?? "")' is not \(expectation)")
        }
        if text == nil && self != .array && self != .dict {
            throw Diagnostic.plist(.unrepresentable, "a \(rawValue) value needs a VALUE argument")
        }
        let text = text ?? ""
        switch self {
        case .string: return .string(text)
        case .integer:
            guard let integer = PlistInteger(text) else { throw bad("an integer from -2^63 to 2^64-1") }
            return .integer(integer)
        case .real:
            guard let real = Double(text) else { throw bad("a real number") }
            return .real(real)
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw bad("a bool (true, false, yes, no, 1 or 0)")
            }
        case .date:
            guard let date = PlistDate(iso8601: text) else { throw bad("a date of the form YYYY-MM-DDTHH:MM:SSZ") }
            return .date(date)
        case .data:
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters),
                text.allSatisfy({ $0.isLetter || $0.isNumber || "+/=\n\r\t ".contains($0) })
            else { throw bad("base64 data") }
            return .data(data)
        case .array, .dict:
            if text.isEmpty { return self == .array ? .array([]) : .dictionary(PlistDictionary()) }
            let value = try JSONPlistReader(limits: limits).read(Data(text.utf8))
            switch (self, value) {
            case (.array, .array), (.dict, .dictionary): return value
            default: throw bad(self == .array ? "a JSON array" : "a JSON object")
            }
        case .json:
            return try JSONPlistReader(limits: limits).read(Data(text.utf8))
        }
    }
}

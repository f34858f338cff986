/// The serialisations PlistKit reads and writes.
public enum PlistFormat: String, CaseIterable, Sendable {
    /// Apple's XML property list (`<?xml … <plist version="1.0">`).
    case xml
    /// Apple's binary property list (`bplist00`).
    case binary
    /// The old-style ASCII (NeXTSTEP/OpenStep) form used by `project.pbxproj` and `.strings`; read only.
    case openStep = "openstep"
    /// JSON, for scripting; dates and data become strings (see `JSONPlistWriter`).
    case json

    /// Guesses the format from the first bytes, not the file name.
    ///
    /// `bplist00` is binary; a leading `<` (after a byte-order mark and white space) is XML;
    /// `{` or `[` may be JSON or OpenStep and returns `.json` (readers fall back to OpenStep);
    /// anything else is OpenStep. Text after a UTF-16 byte-order mark is judged by its first
    /// character that is not white space, as for UTF-8.
    public static func detect<C: Collection>(_ bytes: C) -> PlistFormat where C.Element == UInt8 {
        if bytes.starts(with: Array("bplist".utf8)) { return .binary }
        var rest = bytes[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        if rest.starts(with: [0xFE, 0xFF]) || rest.starts(with: [0xFF, 0xFE]) {
            return detectUTF16(rest.dropFirst(2), bigEndian: rest.first == 0xFE)
        }
        while let first = rest.first, first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D {
            rest = rest.dropFirst()
        }
        switch rest.first {
        case UInt8(ascii: "<"): return .xml
        case UInt8(ascii: "{"), UInt8(ascii: "["): return .json
        default: return .openStep
        }
    }

    private static func detectUTF16<C: Collection>(_ bytes: C, bigEndian: Bool) -> PlistFormat where C.Element == UInt8 {
        var rest = bytes[...]
        while rest.count >= 2 {
            let (a, b) = (rest[rest.startIndex], rest[rest.index(after: rest.startIndex)])
            let (high, low) = bigEndian ? (a, b) : (b, a)
            guard high == 0 else { return .openStep }
            switch low {
            case 0x20, 0x09, 0x0A, 0x0D: rest = rest.dropFirst(2)
            case UInt8(ascii: "<"): return .xml
            case UInt8(ascii: "{"), UInt8(ascii: "["): return .json
            default: return .openStep
            }
        }
        return .openStep
    }
}

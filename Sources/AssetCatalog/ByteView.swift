import SystemSupport

/// Bounds-checked reads of little- and big-endian integers from a window of a byte array.
///
/// Every read checks its offset against the window first and throws a one-line error naming the
/// file, the structure being read and the offset, so a short or hostile file never traps.
struct ByteView {
    let bytes: [UInt8]
    /// The window inside `bytes` that offsets are relative to.
    let range: Range<Int>
    let file: String
    /// What this window holds, for errors: `block 12`, `rendition 'icon.png'`, …
    let what: String

    init(bytes: [UInt8], range: Range<Int>? = nil, file: String, what: String) {
        self.bytes = bytes
        self.range = range ?? bytes.indices
        self.file = file
        self.what = what
    }

    var count: Int { range.count }

    func failure(_ problem: String) -> Diagnostic {
        Diagnostic.assetCatalog(problem, file: file, location: what)
    }

    /// Throws unless `length` bytes at `offset` lie inside the window.
    func check(_ offset: Int, _ length: Int, _ field: String) throws {
        guard offset >= 0, length >= 0, offset <= count, length <= count - offset else {
            throw failure("\(field) at byte \(offset) (\(length) bytes) runs past the end (\(count) bytes)")
        }
    }

    func u8(_ offset: Int, _ field: String) throws -> Int {
        try check(offset, 1, field)
        return Int(bytes[range.lowerBound + offset])
    }

    func u16le(_ offset: Int, _ field: String) throws -> Int {
        try check(offset, 2, field)
        let base = range.lowerBound + offset
        return Int(bytes[base]) | Int(bytes[base + 1]) << 8
    }

    func u32le(_ offset: Int, _ field: String) throws -> Int {
        try check(offset, 4, field)
        let base = range.lowerBound + offset
        return Int(bytes[base]) | Int(bytes[base + 1]) << 8 | Int(bytes[base + 2]) << 16 | Int(bytes[base + 3]) << 24
    }

    func u32be(_ offset: Int, _ field: String) throws -> Int {
        try check(offset, 4, field)
        let base = range.lowerBound + offset
        return Int(bytes[base]) << 24 | Int(bytes[base + 1]) << 16 | Int(bytes[base + 2]) << 8 | Int(bytes[base + 3])
    }

    func u16be(_ offset: Int, _ field: String) throws -> Int {
        try check(offset, 2, field)
        let base = range.lowerBound + offset
        return Int(bytes[base]) << 8 | Int(bytes[base + 1])
    }

    /// The bytes at `offset`, as indices into `bytes`.
    func slice(_ offset: Int, _ length: Int, _ field: String) throws -> Range<Int> {
        try check(offset, length, field)
        return (range.lowerBound + offset)..<(range.lowerBound + offset + length)
    }

    /// A narrower window, for a nested structure.
    func view(_ offset: Int, _ length: Int, _ field: String, what: String? = nil) throws -> ByteView {
        ByteView(bytes: bytes, range: try slice(offset, length, field), file: file, what: what ?? self.what)
    }

    /// True when the four bytes at `offset` are `tag` (as they appear in the file).
    func hasTag(_ offset: Int, _ tag: String) -> Bool {
        let tagBytes = Array(tag.utf8)
        guard offset >= 0, offset <= count - tagBytes.count else { return false }
        return bytes[(range.lowerBound + offset)..<(range.lowerBound + offset + tagBytes.count)].elementsEqual(tagBytes)
    }

    /// A NUL-padded string field, decoded as UTF-8 (bad bytes replaced), at most `length` bytes;
    /// control characters become `?`, so a name from the file cannot break a one-line message.
    func string(_ offset: Int, _ length: Int, _ field: String) throws -> String {
        let window = try slice(offset, length, field)
        let text = bytes[window].prefix { $0 != 0 }.map { $0 < 0x20 || $0 == 0x7F ? UInt8(ascii: "?") : $0 }
        return String(decoding: text, as: UTF8.self)
    }

    /// Four bytes read as a little-endian integer and spelled as a four-character code (`ARGB`).
    func fourCC(_ offset: Int, _ field: String) throws -> String {
        let value = try u32le(offset, field)
        return FourCC.spell(value)
    }
}

/// Four-character codes as CoreUI stores them (a little-endian 32-bit integer).
enum FourCC {
    static func spell(_ value: Int) -> String {
        let characters = [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) }
        if characters.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return String(decoding: characters, as: UTF8.self) }
        return "0x" + String(value, radix: 16)
    }
}

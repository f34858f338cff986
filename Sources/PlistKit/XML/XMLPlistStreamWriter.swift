import Foundation
import SystemSupport

/// Writes Apple's XML property-list layout from events: the standard header and DOCTYPE,
/// one tab per level, `<dict/>` and `<array/>` for empty containers, dates as
/// `YYYY-MM-DDTHH:MM:SSZ`, data as base64 lines of 76 characters, and reals in the shortest
/// form that reads back to the same bits.
///
/// Strings that XML 1.0 cannot carry (most C0 controls, U+FFFE, U+FFFF) are an error naming
/// their key path; a carriage return is written as `&#13;` so it survives XML's line-end rules.
struct XMLPlistEncoder: ~Copyable {
    var out: ByteOutput
    /// An opening tag not yet written, because the container might turn out empty.
    private var pendingOpen: StaticString? = nil
    /// Per open container: whether it is a dictionary, where its current key starts in
    /// `keyBytes`, and its item count.
    private var levels: [(isDictionary: Bool, keyStart: Int, items: Int)] = []
    /// The current key of each open dictionary, back to back, for error messages.
    private var keyBytes = ByteOutput(capacity: 256)

    init(output: consuming ByteOutput) {
        out = output
        out.append(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">

            """)
    }

    /// A piece of a document: the children of a container that is open `depth` levels deep
    /// (the innermost a dictionary when `inDictionary`), without the header. `appendFragment`
    /// puts it in place in the whole document's encoder.
    init(fragmentAtDepth depth: Int, inDictionary: Bool, output: consuming ByteOutput) {
        out = output
        levels = Self.fragmentLevels(depth: depth, inDictionary: inDictionary)
    }

    /// The open containers a fragment starts inside: `depth` of them, the innermost a dictionary
    /// when `inDictionary` (the outer ones matter only to error messages, which come from the
    /// one-thread walk).
    private static func fragmentLevels(depth: Int, inDictionary: Bool) -> [(isDictionary: Bool, keyStart: Int, items: Int)] {
        (0..<depth).map { level in (isDictionary: inDictionary && level == depth - 1, keyStart: 0, items: 0) }
    }

    /// Empties a fragment's encoder for another fragment, keeping its storage.
    mutating func restartFragment(atDepth depth: Int, inDictionary: Bool) {
        out.truncate(to: 0)
        keyBytes.truncate(to: 0)
        pendingOpen = nil
        levels = Self.fragmentLevels(depth: depth, inDictionary: inDictionary)
    }

    /// How many containers are open.
    var openContainers: Int { levels.count }

    /// Writes `fragment`, the next `items` children of the innermost open container, encoded
    /// by an encoder made with `init(fragmentAtDepth:inDictionary:output:)` at this depth.
    mutating func appendFragment(_ fragment: UnsafeRawBufferPointer, items: Int) throws {
        openPending()
        levels[levels.count - 1].items += items
        try out.append(passingThrough: fragment)
    }

    /// The bytes encoded so far and not flushed to a file (all of a fragment's).
    var encoded: UnsafeRawBufferPointer { out.buffer }

    /// Closes the document and returns what was not flushed to a file. Call once, after the last event.
    mutating func finish() throws -> [UInt8] {
        out.append("</plist>\n")
        try out.flush()
        return out.bytes
    }

    private var depth: Int { levels.count }

    @inline(__always) private mutating func indent(_ depth: Int) {
        out.append(0x09, times: depth)
    }

    /// Writes a deferred opening tag before the first child arrives.
    @inline(__always) private mutating func openPending() {
        guard let tag = pendingOpen else { return }
        pendingOpen = nil
        indent(depth - 1)
        out.append(tag)
    }

    /// Called before every value: writes a pending opening tag and counts the item.
    @inline(__always) private mutating func beginValue() throws {
        openPending()
        if !levels.isEmpty { levels[levels.count - 1].items += 1 }
        try out.flushIfLarge()
    }

    mutating func beginArray() throws {
        try beginValue()
        levels.append((false, keyBytes.count, 0))
        pendingOpen = "<array>\n"
    }

    mutating func beginDictionary() throws {
        try beginValue()
        levels.append((true, keyBytes.count, 0))
        pendingOpen = "<dict>\n"
    }

    mutating func endContainer() {
        let level = levels.removeLast()
        keyBytes.truncate(to: level.keyStart)
        if pendingOpen != nil {
            pendingOpen = nil
            indent(depth)
            out.append(level.isDictionary ? "<dict/>\n" : "<array/>\n")
        } else {
            indent(depth)
            out.append(level.isDictionary ? "</dict>\n" : "</array>\n")
        }
    }

    mutating func key(_ utf8: UnsafeRawBufferPointer) throws {
        openPending()
        keyBytes.truncate(to: levels[levels.count - 1].keyStart)
        keyBytes.append(utf8)
        indent(depth)
        out.append("<key>")
        try escape(utf8)
        out.append("</key>\n")
    }

    /// Writes one scalar element whose body `write` puts straight into the output: at most
    /// `maximum` bytes, returning how many it wrote.
    @inline(__always)
    private mutating func element(
        _ open: StaticString, _ close: StaticString, maximum: Int,
        _ write: (UnsafeMutablePointer<UInt8>) -> Int
    ) throws {
        try beginValue()
        indent(depth)
        out.append(open)
        out.write(maximum: maximum, write)
        out.append(close)
    }

    mutating func string(_ utf8: UnsafeRawBufferPointer) throws {
        try beginValue()
        indent(depth)
        out.append("<string>")
        try escape(utf8)
        out.append("</string>\n")
    }

    mutating func integer(_ value: PlistInteger) throws {
        try element("<integer>", "</integer>\n", maximum: PlistInteger.maximumDecimalLength) { value.writeDecimal(to: $0) }
    }

    mutating func real(_ value: Double) throws {
        try beginValue()
        indent(depth)
        out.append("<real>")
        XMLPlistWriter.appendFormatted(value, to: &out)
        out.append("</real>\n")
    }

    mutating func date(_ value: PlistDate) throws {
        guard value.hasISO8601Form else {
            try beginValue()  // so the key path names this value
            throw PlistDate.unrepresentable(value, in: "XML", keyPath: currentPath)
        }
        try element("<date>", "</date>\n", maximum: PlistDate.maximumISO8601Length) { value.writeISO8601(to: $0) }
    }

    mutating func bool(_ value: Bool) throws {
        try beginValue()
        indent(depth)
        out.append(value ? "<true/>\n" : "<false/>\n")
    }

    mutating func data(_ bytes: UnsafeRawBufferPointer) throws {
        try beginValue()
        indent(depth)
        out.append("<data>\n")
        // As Core Foundation lays data out: lines of 76 characters less 8 for each tab in front
        // of them, the tabs stopping at 8 (lines of 12), however deep the value.
        let level = min(depth, 8)
        let lineLength = 76 - 8 * level
        out.write(maximum: Base64.encodedLength(of: bytes.count, lineLength: lineLength, indent: level)) {
            Base64.encode(bytes, lineLength: lineLength, indent: level, to: $0)
        }
        indent(depth)
        out.append("</data>\n")
    }

    mutating func uid(_ value: UInt64) throws {
        // Core Foundation writes a UID to XML as a one-key dictionary.
        try beginValue()
        indent(depth)
        out.append("<dict>\n")
        indent(depth + 1)
        out.append("<key>CF$UID</key>\n")
        indent(depth + 1)
        out.append(utf8Of: "<integer>\(value)</integer>\n")
        indent(depth)
        out.append("</dict>\n")
    }

    /// The key path of the value being written, for error messages.
    private var currentPath: String {
        PlistKeyPath(
            levels.indices.map { index in
                let level = levels[index]
                guard level.isDictionary else { return String(max(0, level.items - 1)) }
                let end = index + 1 < levels.count ? levels[index + 1].keyStart : keyBytes.count
                return String(decoding: keyBytes.buffer[level.keyStart..<end], as: UTF8.self)
            }
        ).description
    }

    /// Appends `utf8` with `&`, `<`, `>` and carriage returns escaped (``XMLText``).
    ///
    /// Eight bytes at a time: a word without a control character, `&`, `<`, `>` or 0xEF (the
    /// lead byte of U+FFFE and U+FFFF) is copied as it is; any other word goes byte by byte.
    private mutating func escape(_ utf8: UnsafeRawBufferPointer) throws {
        let bytes = utf8.bindMemory(to: UInt8.self)
        var runStart = 0
        var index = 0
        while index < bytes.count {
            if index + 8 <= bytes.count,
                !Self.mayNeedEscaping(utf8.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            {
                index += 8
                continue
            }
            let wordEnd = min(index + 8, bytes.count)
            while index < wordEnd {
                defer { index += 1 }
                let byte = bytes[index]
                guard byte < 0x3F else {
                    if byte == 0xEF, index + 2 < bytes.count, bytes[index + 1] == 0xBF, bytes[index + 2] >= 0xBE {
                        throw unrepresentable(0xFFFF - (0xBF - UInt32(bytes[index + 2])))
                    }
                    continue
                }
                guard let replacement = XMLText.entity(for: byte, inAttribute: false) else {
                    if !XMLText.canHold(Unicode.Scalar(byte)) { throw unrepresentable(UInt32(byte)) }
                    continue
                }
                out.append(UnsafeRawBufferPointer(rebasing: utf8[runStart..<index]))
                out.append(replacement)
                runStart = index + 1
            }
        }
        out.append(UnsafeRawBufferPointer(rebasing: utf8[runStart..<utf8.count]))
    }

    /// Whether any of the eight bytes of `word` is below 0x20, `&`, `<`, `>` or 0xEF (never a
    /// false "no"; a "yes" only sends the word through the byte-by-byte loop).
    @inline(__always) static func mayNeedEscaping(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func hasZeroByte(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let control = (word &- ones &* 0x20) & ~word & highs
        let ampersand = hasZeroByte(word ^ (ones &* 0x26))
        let angle = hasZeroByte((word | (ones &* 0x02)) ^ (ones &* 0x3E))  // `<` is 0x3C, `>` 0x3E
        let lead = hasZeroByte(word ^ (ones &* 0xEF))
        return control | ampersand | angle | lead != 0
    }

    private func unrepresentable(_ scalar: UInt32) -> Diagnostic {
        let hex = String(scalar, radix: 16, uppercase: true)
        return Diagnostic.plist(
            .unrepresentable,
            "the string holds U+\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex), "
                + "which XML cannot carry; write binary instead", keyPath: currentPath)
    }
}

/// The event-sink face of `XMLPlistEncoder` (which keeps all state in one struct, so each
/// event costs one exclusivity check instead of one per field).
final class XMLPlistStreamWriter: PlistEventSink {
    /// Behind a pointer, so the per-event calls skip the dynamic exclusivity checks a stored
    /// class property would cost; only this object touches it.
    private let encoder: UnsafeMutablePointer<XMLPlistEncoder>

    init(output: consuming ByteOutput) {
        encoder = .allocate(capacity: 1)
        encoder.initialize(to: XMLPlistEncoder(output: output))
    }

    /// A writer of a fragment (see `XMLPlistEncoder.init(fragmentAtDepth:inDictionary:output:)`).
    init(fragmentAtDepth depth: Int, inDictionary: Bool, output: consuming ByteOutput) {
        encoder = .allocate(capacity: 1)
        encoder.initialize(to: XMLPlistEncoder(fragmentAtDepth: depth, inDictionary: inDictionary, output: output))
    }

    /// Empties a fragment's writer for another fragment, keeping its storage.
    func restartFragment(atDepth depth: Int, inDictionary: Bool) {
        encoder.pointee.restartFragment(atDepth: depth, inDictionary: inDictionary)
    }

    /// How many containers are open.
    var openContainers: Int { encoder.pointee.openContainers }

    /// The bytes written so far and not flushed to a file (all of a fragment's).
    var encoded: UnsafeRawBufferPointer { encoder.pointee.encoded }

    /// Writes a fragment's bytes as the next `items` children of the innermost open container.
    func appendFragment(_ fragment: UnsafeRawBufferPointer, items: Int) throws {
        try encoder.pointee.appendFragment(fragment, items: items)
    }

    deinit {
        encoder.deinitialize(count: 1)
        encoder.deallocate()
    }

    /// Closes the document and returns what was not flushed to a file.
    func finish() throws -> [UInt8] { try encoder.pointee.finish() }

    func beginArray() throws { try encoder.pointee.beginArray() }
    func beginDictionary() throws { try encoder.pointee.beginDictionary() }
    func endContainer() { encoder.pointee.endContainer() }
    func key(_ utf8: UnsafeRawBufferPointer) throws { try encoder.pointee.key(utf8) }
    func string(_ utf8: UnsafeRawBufferPointer) throws { try encoder.pointee.string(utf8) }
    func integer(_ value: PlistInteger) throws { try encoder.pointee.integer(value) }
    func real(_ value: Double) throws { try encoder.pointee.real(value) }
    func bool(_ value: Bool) throws { try encoder.pointee.bool(value) }
    func date(_ value: PlistDate) throws { try encoder.pointee.date(value) }
    func data(_ bytes: UnsafeRawBufferPointer) throws { try encoder.pointee.data(bytes) }
    func uid(_ value: UInt64) throws { try encoder.pointee.uid(value) }
}

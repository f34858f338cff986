import SystemSupport

/// Turns byte offsets into 1-based line and column numbers for error messages.
enum TextPosition {
    static func location<C: Collection>(of offset: Int, in bytes: C) -> Diagnostic.Place?
    where C.Element == UInt8, C.Index == Int {
        var line = 1
        var column = 1
        var index = bytes.startIndex
        let end = min(bytes.startIndex + offset, bytes.endIndex)
        while index < end {
            if bytes[index] == 0x0A { line += 1; column = 1 } else if bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        return .line(line, column: column)
    }
}

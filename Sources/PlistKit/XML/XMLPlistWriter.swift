import Foundation

/// Writes Apple's XML property-list layout from a value; see `XMLPlistStreamWriter`.
public struct XMLPlistWriter {
    /// Write dictionary keys sorted as Apple's tools do instead of in their stored order.
    public var sortKeys: Bool

    public init(sortKeys: Bool = false) { self.sortKeys = sortKeys }

    /// Serialises `value`; throws for strings that XML 1.0 cannot carry (most control characters).
    public func write(_ value: PlistValue) throws -> Data {
        let writer = XMLPlistStreamWriter(output: ByteOutput())
        try value.emit(to: writer, sortKeys: sortKeys)
        return Data(try writer.finish())
    }

    /// The shortest decimal that reads back to the same double; whole numbers without `.0`.
    static func format(_ real: Double) -> String {
        if real.isNaN { return "nan" }
        if real.isInfinite { return real < 0 ? "-infinity" : "+infinity" }
        var text = real.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// Appends exactly the bytes of `format(real)`, without its string operations (`hasSuffix`
    /// and `removeLast` walk grapheme clusters, which cost more than the formatting itself).
    static func appendFormatted(_ real: Double, to out: inout ByteOutput) {
        if real.isNaN { out.append("nan"); return }
        if real.isInfinite { out.append(real < 0 ? "-infinity" : "+infinity"); return }
        var text = real.description
        text.withUTF8 { utf8 in
            let count = utf8.count
            let whole = count >= 2 && utf8[count - 2] == UInt8(ascii: ".") && utf8[count - 1] == UInt8(ascii: "0")
            out.append(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[..<(whole ? count - 2 : count)]))
        }
    }
}

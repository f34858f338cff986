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
}

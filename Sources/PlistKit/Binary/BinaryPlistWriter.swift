import Foundation

/// Writes Apple's binary property lists (`bplist00`) from a value; see `BinaryPlistStreamWriter`
/// for the layout, which is Core Foundation's.
public struct BinaryPlistWriter {
    /// Write dictionary keys sorted as Apple's tools do instead of in their stored order.
    public var sortKeys: Bool

    public init(sortKeys: Bool = false) { self.sortKeys = sortKeys }

    public func write(_ value: PlistValue) throws -> Data {
        let writer = BinaryPlistStreamWriter()
        try value.emit(to: writer, sortKeys: sortKeys)
        return Data(writer.finish())
    }
}

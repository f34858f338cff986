/// A plist integer: any value from −2^63 to 2^64−1, the range Apple's formats hold.
public struct PlistInteger: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The two's-complement bits; for values above `Int64.max`, read with `isUnsignedHigh`.
    public let bits: UInt64
    /// True when the value is above `Int64.max` (so `bits` is read unsigned).
    public let isUnsignedHigh: Bool

    public init(_ value: Int64) {
        bits = UInt64(bitPattern: value)
        isUnsignedHigh = false
    }

    public init(_ value: Int) { self.init(Int64(value)) }

    public init(_ value: UInt64) {
        bits = value
        isUnsignedHigh = value > UInt64(Int64.max)
    }

    /// Parses decimal (with optional sign) or `0x` hexadecimal text; nil when out of range or malformed.
    public init?(parsing text: Substring) {
        guard
            let value = text.utf8.withContiguousStorageIfAvailable({ PlistInteger(utf8: $0) })
                ?? PlistInteger(utf8: Array(text.utf8).withUnsafeBufferPointer({ $0 }))
        else { return nil }
        self = value
    }

    /// Parses decimal (with optional sign) or `0x` hexadecimal UTF-8 text.
    public init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        var index = 0
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            negative = true; index += 1
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") {
            index += 1
        }
        var radix: UInt64 = 10
        if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "0"), bytes[index + 1] | 0x20 == UInt8(ascii: "x") {
            radix = 16
            index += 2
        }
        guard index < bytes.count else { return nil }
        var magnitude: UInt64 = 0
        while index < bytes.count {
            let unit = bytes[index]
            index += 1
            let digit: UInt64
            switch unit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(unit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt64(unit - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: digit = UInt64(unit - UInt8(ascii: "A") + 10)
            default: return nil
            }
            let (m1, o1) = magnitude.multipliedReportingOverflow(by: radix)
            let (m2, o2) = m1.addingReportingOverflow(digit)
            if o1 || o2 { return nil }
            magnitude = m2
        }
        if negative {
            if magnitude > UInt64(Int64.max) + 1 { return nil }
            self.init(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
        } else {
            self.init(magnitude)
        }
    }

    public init?(_ text: String) { self.init(parsing: Substring(text)) }

    /// The value as `Int64`, or nil when it is above `Int64.max`.
    public var int64: Int64? { isUnsignedHigh ? nil : Int64(bitPattern: bits) }

    /// The value as `Int`, or nil when it does not fit.
    public var int: Int? { int64.map { Int($0) } }

    public var isNegative: Bool { !isUnsignedHigh && Int64(bitPattern: bits) < 0 }

    /// The most bytes `writeDecimal(to:)` writes: a sign and 20 digits.
    static let maximumDecimalLength = 21

    /// Appends the decimal digits (with a leading `-` when negative) to `out`.
    public func appendDecimal(to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: PlistInteger.maximumDecimalLength) { buffer in
            out.append(contentsOf: buffer[..<writeDecimal(to: buffer.baseAddress!)])
        }
    }

    /// Writes the decimal digits (with a leading `-` when negative) at `out`, which has room for
    /// `maximumDecimalLength` bytes; returns how many it wrote.
    @inline(__always)
    func writeDecimal(to out: UnsafeMutablePointer<UInt8>) -> Int {
        var magnitude = bits
        var sign = 0
        if isNegative {
            out.pointee = UInt8(ascii: "-")
            magnitude = 0 &- bits
            sign = 1
        }
        return sign + PlistInteger.writeDigits(magnitude, minimumWidth: 1, to: out + sign)
    }

    /// Appends `value` in decimal, zero-padded to `minimumWidth` digits.
    static func appendDigits(_ value: UInt64, minimumWidth: Int, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(20, minimumWidth)) { buffer in
            out.append(contentsOf: buffer[..<writeDigits(value, minimumWidth: minimumWidth, to: buffer.baseAddress!)])
        }
    }

    /// Writes `value` in decimal, zero-padded to `minimumWidth` digits, at `out` (room for
    /// `max(20, minimumWidth)` bytes); returns how many it wrote.
    @inline(__always)
    static func writeDigits(_ value: UInt64, minimumWidth: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var count = 1
        var scale: UInt64 = 10
        // Count the digits first, so they can be written in place from the last one back.
        while count < 20 && value >= scale { count += 1; scale = scale &* 10 }
        count = max(count, minimumWidth)
        var rest = value
        var index = count
        while index > 0 {
            index -= 1
            out[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        return count
    }

    public var description: String {
        isUnsignedHigh ? String(bits) : String(Int64(bitPattern: bits))
    }

    public static func < (lhs: PlistInteger, rhs: PlistInteger) -> Bool {
        switch (lhs.isUnsignedHigh, rhs.isUnsignedHigh) {
        case (false, false): return Int64(bitPattern: lhs.bits) < Int64(bitPattern: rhs.bits)
        case (true, true): return lhs.bits < rhs.bits
        case (false, true): return true
        case (true, false): return false
        }
    }
}

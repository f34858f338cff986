extension Sequence where Element == UInt8 {
    /// Lower-case hexadecimal, two digits per byte: cdhashes as `codesign` prints them, and SigV4's
    /// hashes and signatures.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A Mach-O CPU type and subtype, named as Apple's tools name them (`arm64`, `armv7`, `x86_64`).
public struct CPUType: Sendable, Equatable, CustomStringConvertible {
    public var type: Int32
    public var subtype: Int32

    public init(type: Int32, subtype: Int32) {
        self.type = type
        self.subtype = subtype
    }

    static let abi64: Int32 = 0x0100_0000
    static let abi6432: Int32 = 0x0200_0000
    static let arm: Int32 = 12
    static let x86: Int32 = 7

    /// The architecture name `lipo -info` prints, or `cpu <type>/<subtype>` for one it does not know.
    public var description: String {
        let sub = subtype & 0x00ff_ffff
        switch type {
        case CPUType.arm | CPUType.abi64:
            return sub == 2 ? "arm64e" : "arm64"
        case CPUType.arm | CPUType.abi6432:
            return "arm64_32"
        case CPUType.arm:
            switch sub {
            case 5: return "armv4t"
            case 6: return "armv6"
            case 7: return "armv5"
            case 8: return "xscale"
            case 9: return "armv7"
            case 10: return "armv7f"
            case 11: return "armv7s"
            case 12: return "armv7k"
            case 13: return "armv8"
            case 14: return "armv6m"
            case 15: return "armv7m"
            case 16: return "armv7em"
            default: return "arm"
            }
        case CPUType.x86 | CPUType.abi64:
            return sub == 8 ? "x86_64h" : "x86_64"
        case CPUType.x86:
            return "i386"
        default:
            return "cpu \(type)/\(subtype)"
        }
    }
}

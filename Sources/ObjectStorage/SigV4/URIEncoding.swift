/// Percent-encoding as SigV4 wants it: every byte of the UTF-8 text except the unreserved characters
/// `A–Z a–z 0–9 - _ . ~` becomes `%XX` (upper-case hex), so a space is `%20` (never `+`) and `+` is `%2B`.
public enum URIEncoding {
    /// `text` encoded as a query name or value (or one path segment): `/` is encoded too.
    public static func component(_ text: String) -> String { encode(text, keepingSlash: false) }

    /// An object key or path encoded for the URL and the canonical request, keeping `/` as it is:
    /// S3 paths are encoded once, never normalised (`a//b/./c` stays as it is).
    public static func path(_ text: String) -> String { encode(text, keepingSlash: true) }

    private static func encode(_ text: String, keepingSlash: Bool) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) || (keepingSlash && byte == UInt8(ascii: "/")) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0f)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}

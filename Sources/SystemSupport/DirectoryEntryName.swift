/// The name of an entry `readdir` returned, as the bytes the file system holds.
///
/// Linux takes any bytes but `/` and NUL as a name, but an ipa names its entries in UTF-8 and iOS
/// its files; decoding such a name with replacement characters gave a path that does not exist
/// (`cannot be read: No such file or directory` for a file that is there), and Foundation refused
/// it with a raw `NSCocoaErrorDomain` dump.
public enum DirectoryEntryName {
    /// The name held in `bytes` (up to the first NUL), or an error naming `folder` and the name with
    /// each byte that is not UTF-8 shown as `\xFF`.
    public static func decode(_ bytes: UnsafeRawBufferPointer, in folder: String) throws -> String {
        let name = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.firstIndex(of: 0) ?? bytes.count)])
        // Most names are ASCII, which is UTF-8 as it stands: decoded without the generic validation,
        // which looked up type metadata for each of an app's thousands of names.
        if !name.contains(where: { $0 >= 0x80 }) { return String(decoding: name, as: UTF8.self) }
        if let text = String(validating: name, as: UTF8.self) { return text }
        throw Diagnostic.io(
            "holds a file whose name is not UTF-8 ('\(shown(Array(name)))'); an ipa names its files in UTF-8, so rename it",
            file: folder)
    }

    /// `bytes` as text: each valid UTF-8 sequence as its characters (control characters shown as
    /// ``UntrustedText`` shows them), every other byte as `\xHH`.
    static func shown(_ bytes: [UInt8]) -> String {
        var result = ""
        var index = 0
        while index < bytes.count {
            var matched = false
            for length in (1...4).reversed() where index + length <= bytes.count {
                if let text = String(validating: bytes[index..<index + length], as: UTF8.self), text.unicodeScalars.count == 1 {
                    result += UntrustedText.line(text)
                    index += length
                    matched = true
                    break
                }
            }
            if !matched {
                result += "\\x" + (bytes[index] < 0x10 ? "0" : "") + String(bytes[index], radix: 16, uppercase: true)
                index += 1
            }
        }
        return result
    }
}

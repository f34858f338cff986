import SystemSupport

/// What the names going into an ipa must be: read back the same way by every zip reader.
enum ArchiveEntryNames {
    /// Refuses the first entry whose name holds a control character (U+0000 to U+001F, U+007F).
    /// Zip readers disagree on such a name: libzip refuses it when it is flagged UTF-8 and reads it
    /// as CP437 when it is not, so an ipa holding one is not read back as written (one with a BEL in
    /// its app's name was packaged, then called damaged by the reader). No app needs one, and a
    /// newline in a name forges lines in whatever prints it. Reading such an app is not refused.
    /// A backslash is refused too: unzip tools take it for a folder separator, and this reader refuses
    /// such a name, so an ipa holding one could not be checked after it was written.
    static func check(_ entries: [BundleTree.Entry]) throws {
        for entry in entries {
            // Byte by byte: `contains` with a string goes through Foundation's CFString search.
            if entry.archivePath.utf8.contains(UInt8(ascii: "\\")) {
                throw Diagnostic.ipa(
                    "has a backslash in its name, which unzip tools take for a folder separator; rename it",
                    file: UntrustedText.line(entry.sourcePath))
            }
            guard let control = entry.archivePath.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) else { continue }
            throw Diagnostic.ipa(
                "has a control character (\(UntrustedText.line(String(control)))) in its name, which zip readers read "
                    + "differently; rename it", file: UntrustedText.line(entry.sourcePath))
        }
    }
}

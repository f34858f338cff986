import Foundation
import SystemSupport

/// The shape iOS's installer requires of an ipa, checked on its entry names before anything is read:
/// one `Payload` folder holding exactly one `.app` folder, and names that mean one thing wherever
/// the archive is unpacked.
///
/// Entry names are plain paths already (`ZipArchiveReader.checkName` refuses empty, `.` and
/// backslash-separated parts). Refused, each with the entry named: two names that differ only in letter case or Unicode
/// normalization (one file on the case-insensitive, normalization-insensitive file systems of a Mac,
/// two elsewhere); a file or link that other entries sit inside; no `Payload` folder (its name is
/// case-sensitive); no app, or more than one, directly in `Payload`; an app that is a file or a link.
public enum PayloadLayout {
    /// The app folder's name (`Demo.app`) when the archive's entries form an installable Payload.
    public static func app(in entries: [ZipArchiveReader.Entry], archive path: String) throws -> String {
        var seen: [String: String] = [:]  // folded name -> name as written
        // Names as written, byte for byte (Swift's String equality already equates Unicode forms),
        // so each is folded once.
        var written = Set<WrittenName>()
        var leaves: [String: ZipArchiveReader.Entry] = [:]  // files and links by name
        var folders = Set<String>()
        for entry in entries {
            var name = entry.name
            if name.hasSuffix("/") { name.removeLast() }
            if name.hasPrefix("__MACOSX/") || name == "__MACOSX" { continue }
            // The name up to each of its slashes, then the name: its folders, then itself.
            let slashes = slashIndices(name)
            let depths = slashes.count + 1
            let prefix = { (depth: Int) -> String in depth == depths ? name : String(name[..<slashes[depth - 1]]) }
            // Every prefix is a folder of this name; a folder may be implied by many entries. A
            // folder's own folders are listed with it, so the walk up stops at the first one known.
            for depth in stride(from: depths - 1, through: 1, by: -1) {
                guard folders.insert(prefix(depth)).inserted else { break }
            }
            // Each name is folded once, in order from the top: the prefixes below the deepest one
            // written (whose own prefixes were written with it).
            var known = depths
            while known > 0 && !written.contains(WrittenName(prefix(known))) { known -= 1 }
            for depth in (known + 1)..<(depths + 1) {
                let prefix = prefix(depth)
                written.insert(WrittenName(prefix))
                let folded = fold(prefix)
                if let other = seen[folded], !other.utf8.elementsEqual(prefix.utf8) {
                    throw differOnlyInForm(prefix, other, archive: path)
                }
                seen[folded] = prefix
            }
            if entry.isDirectory { folders.insert(name) } else { leaves[name] = entry }
        }
        for (name, entry) in leaves where folders.contains(name) {
            throw Diagnostic.ipa(
                "is a \(entry.isSymlink ? "symbolic link" : "file"), but other entries are inside it", file: path, entry: entry.name)
        }
        guard folders.contains("Payload") else {
            if let other = seen[fold("Payload")] {
                if other == "Payload" {
                    throw Diagnostic.ipa("has a file named Payload where the Payload folder should be, so it is not an ipa", file: path)
                }
                throw Diagnostic.ipa(
                    "has no Payload folder (it has '\(other)'; the name is case-sensitive), so it is not an ipa", file: path)
            }
            throw Diagnostic.ipa("has no Payload/<Name>.app, so it is not an ipa", file: path)
        }
        let candidates = Set(
            seen.values.compactMap { name -> String? in
                let parts = name.split(separator: "/")
                return parts.count == 2 && parts[0] == "Payload" && parts[1].lowercased().hasSuffix(".app") ? String(parts[1]) : nil
            }
        ).sorted()
        guard let app = candidates.first else { throw Diagnostic.ipa("has no Payload/<Name>.app, so it is not an ipa", file: path) }
        guard candidates.count == 1 else {
            throw Diagnostic.ipa(
                "holds \(candidates.count) apps in Payload (\(candidates.joined(separator: ", "))); iOS installs an ipa "
                    + "holding exactly one", file: path)
        }
        if let leaf = leaves["Payload/" + app] {
            throw Diagnostic.ipa("is a \(leaf.isSymlink ? "symbolic link" : "file"), not an app folder", file: path, entry: leaf.name)
        }
        return app
    }

    /// A name compared and hashed as its UTF-8 bytes, as it was written: two Unicode forms of one
    /// text are two names (Swift's `String` equality takes them for one), with no array made of
    /// the bytes for each (a tenth of the time of checking an ipa of thousands of entries).
    struct WrittenName: Hashable {
        let name: String

        init(_ name: String) { self.name = name }

        static func == (left: WrittenName, right: WrittenName) -> Bool {
            var (left, right) = (left.name, right.name)
            return left.withUTF8 { a in
                right.withUTF8 { b in a.count == b.count && (a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0) }
            }
        }

        func hash(into hasher: inout Hasher) {
            var name = name
            name.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    /// Where `name` has a `/` (a character of its own), in order.
    static func slashIndices(_ name: String) -> [String.Index] {
        // ASCII text is one character per byte (but CR LF, which holds no slash).
        if name.utf8.allSatisfy({ $0 < 0x80 }) { return name.utf8.indices.filter { name.utf8[$0] == UInt8(ascii: "/") } }
        return name.indices.filter { name[$0] == "/" }
    }

    /// Two names that one file system takes for one file and another for two.
    static func differOnlyInForm(_ name: String, _ other: String, archive path: String) -> Diagnostic {
        Diagnostic.ipa(
            "differs from '\(other)' only in letter case or Unicode form, so the two are one file on a Mac's file system and two elsewhere",
            file: path, entry: name)
    }

    /// The name as a case-insensitive, normalization-insensitive file system compares it.
    static func fold(_ name: String) -> String {
        if name.utf8.allSatisfy({ $0 < 0x80 }) { return name.lowercased() }
        return name.decomposedStringWithCanonicalMapping.lowercased()
    }
}

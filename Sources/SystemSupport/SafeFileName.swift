import Foundation

/// One file name made from text a build controls (an icon set's name in `Assets.car`, an icon file
/// named by an Info.plist), safe to put in an output folder the user named.
///
/// Build content is written by whoever made the build, so a name such as `../../esc/zzzzz` must not
/// become a path: every `/` and `\`, NUL and other control character becomes `_`, leading dots become
/// `_`, as does every `..` (so neither `.` nor `..` nor a hidden file is left), an empty name becomes `fallback`, and the
/// name is cut to ``maximumBytes`` UTF-8 bytes on a character boundary.
public enum SafeFileName {
    /// The longest name made, in UTF-8 bytes: well below the 255 bytes file systems allow, leaving
    /// room for what callers add (`-180x180@3x~iphone.png`).
    public static let maximumBytes = 120

    /// `text` reduced to one safe file name; `fallback` when nothing of it is left.
    public static func from(_ text: String, fallback: String = "unnamed") -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(isUnsafe(scalar) ? "_" : scalar)
        }
        var name = String(scalars).replacingOccurrences(of: "..", with: "__")
        if let firstOther = name.firstIndex(where: { $0 != "." }) {
            name = String(repeating: "_", count: name.distance(from: name.startIndex, to: firstOther)) + name[firstOther...]
        } else {
            name = String(repeating: "_", count: name.count)
        }
        var bounded = ""
        for character in name {
            guard bounded.utf8.count + character.utf8.count <= maximumBytes else { break }
            bounded.append(character)
        }
        return bounded.isEmpty ? fallback : bounded
    }

    /// `folder/name`, once `name` is checked to be one file name that keeps the path inside
    /// `folder`: not empty, not `.` or `..`, no `/`, no NUL or control character, not too long.
    /// Throws naming the folder and the name otherwise.
    public static func path(_ name: String, inside folder: String) throws -> String {
        guard !name.isEmpty, name != ".", name != "..", name.utf8.count <= 255, !name.unicodeScalars.contains(where: isUnsafe) else {
            throw Diagnostic.io(
                "refusing to write '\(UntrustedText.line(name))' here: not one safe file name inside the folder", file: folder)
        }
        return (folder.hasSuffix("/") ? folder : folder + "/") + name
    }

    /// A separator (`/`, `\`), NUL or other control character, or a line or paragraph separator.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "/" || scalar == "\\" || scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
            || scalar.properties.generalCategory == .lineSeparator || scalar.properties.generalCategory == .paragraphSeparator
    }
}

/// A temporary copy a command works on (an app copied to be changed and signed, an ipa unpacked),
/// and how to say its paths as the user knows them: errors found in the copy name the file the user
/// gave, never `.adhocbuild-tmp-…`.
public struct PathRelocation: Sendable {
    /// What the user named.
    public enum Original: Sendable, Equatable {
        /// A file or folder, whose copy mirrors it: `copy/Info.plist` is `path/Info.plist`.
        case path(String)
        /// An archive unpacked into the copy: `copy/Payload/X.app/Info.plist` is the entry
        /// `Payload/X.app/Info.plist` of `archive`.
        case archive(String)
    }

    /// The copy's top.
    public let copy: String
    public let original: Original

    public init(copy: String, original: Original) {
        self.copy = copy.count > 1 && copy.hasSuffix("/") ? String(copy.dropLast()) : copy
        self.original = original
    }

    /// `error` told with the user's paths: a diagnostic's file, place, problem and hint (each
    /// diagnostic of a list), a Foundation error as one line naming its file. Errors that name
    /// nothing in the copy come back as they were.
    public func relocate(_ error: any Error) -> any Error {
        switch error {
        case let list as Diagnostics:
            return Diagnostics(list.items.map { mentionsCopy($0) ? relocate(diagnostic: $0) : $0 })
        case let diagnostic as Diagnostic:
            return mentionsCopy(diagnostic) ? relocate(diagnostic: diagnostic) : diagnostic
        default:
            guard FoundationError.isFoundationError(error) else { return error }
            return relocate(diagnostic: Diagnostic.io(FoundationError.reason(error), file: FoundationError.path(of: error)))
        }
    }

    /// Whether any part of `diagnostic` names a path in the copy.
    private func mentionsCopy(_ diagnostic: Diagnostic) -> Bool {
        [diagnostic.file, diagnostic.location, diagnostic.message, diagnostic.hint].contains { $0?.contains(copy) == true }
    }

    /// `diagnostic` with every path in the copy said as the user's; a file inside an unpacked archive
    /// becomes the archive, with the entry as the first place.
    private func relocate(diagnostic: Diagnostic) -> Diagnostic {
        var relocated = diagnostic
        relocated.file = diagnostic.file.map(text)
        relocated.places = diagnostic.places.map(relocate(place:))
        relocated.message = text(diagnostic.message)
        relocated.hint = diagnostic.hint.map(text)
        if let named = diagnostic.file, let rest = inside(named), case .archive(let archive) = original {
            relocated.file = archive
            let entry = String(rest.hasPrefix("/") ? rest.dropFirst() : rest)
            if !entry.isEmpty { relocated.places.insert(.entry(entry), at: 0) }
        }
        return relocated
    }

    private func relocate(place: Diagnostic.Place) -> Diagnostic.Place {
        switch place {
        case .keyPath(let path): return .keyPath(text(path))
        case .entry(let name): return .entry(text(name))
        case .text(let words): return .text(text(words))
        case .byte, .hexByte, .line, .block: return place
        }
    }

    /// What follows the copy's top in `path` (`""` or `/…`), nil when `path` is not in the copy.
    private func inside(_ path: String) -> Substring? {
        guard path.hasPrefix(copy) else { return nil }
        let rest = path.dropFirst(copy.count)
        return rest.isEmpty || rest.hasPrefix("/") ? rest : nil
    }

    /// `text` with each path in the copy written as the user's: the file's own path, or for an
    /// archive its name and the entry (`in.ipa: Payload/X.app/Info.plist`).
    public func text(_ text: String) -> String {
        guard text.contains(copy) else { return text }
        var result = ""
        var rest = Substring(text)
        while let range = rest.range(of: copy) {
            result += rest[..<range.lowerBound]
            let after = rest[range.upperBound...]
            // Only a whole path: the copy's top, then the end or something that cannot go on its name
            // (a temporary name ends in letters and digits, so another name may only add those, `-`, `.` or `_`).
            let boundary = after.first.map { !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_") } ?? true
            guard boundary else {
                result += rest[range]
                rest = after
                continue
            }
            switch original {
            case .path(let path): result += path
            case .archive(let archive):
                result += archive
                if after.first == "/" {
                    result += ": "
                    rest = after.dropFirst()
                    continue
                }
            }
            rest = after
        }
        return result + rest
    }
}

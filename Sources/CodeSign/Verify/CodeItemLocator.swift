import IPAKit
import SystemSupport

/// A code item found in an app: a bundle (app, extension, framework) or a loose dylib, by its path
/// in the storage, with the code nested in it.
struct CodeItemLocation: Sendable {
    /// The storage path (`Payload/Test.app/Frameworks/X.framework`).
    var key: String
    var kind: CodeItemKind
    var nested: [CodeItemLocation]

    var isBundle: Bool { kind != .dylib }

    /// The items inside out: every nested item (recursively) before this one.
    var insideOut: [CodeItemLocation] { nested.flatMap(\.insideOut) + [self] }
}

/// Finds the nested code of a bundle where Apple's tools put it: `Frameworks/*.framework` and
/// `Frameworks/*.dylib`, `SharedFrameworks`, `PlugIns` (`.appex`, test bundles `.xctest`, `.xpc`),
/// `Extensions` (`.appex`), `Watch` and `AppClips` (`.app`), `XPCServices` (`.xpc`), each searched
/// again inside.
struct CodeItemLocator {
    /// Where nested code lives in a bundle, and the names it has there.
    static let places: [(folder: String, suffixes: [String])] = [
        ("Frameworks", [".framework", ".dylib"]), ("SharedFrameworks", [".framework", ".dylib"]),
        ("PlugIns", [".appex", ".xctest", ".xpc"]), ("Extensions", [".appex"]), ("Watch", [".app"]), ("AppClips", [".app"]),
        ("XPCServices", [".xpc"])
    ]
    /// Deeper than any real app nests code; bounds the walk on a hostile layout.
    static let maxDepth = 6

    /// The names directly inside each folder of the storage that ``locate(app:)`` looks into: the
    /// folders of ``places`` and the folders named as bundles (an app's thousands of resources in
    /// other folders are not split and sorted for nothing).
    let children: [String: [String]]
    let files: [String: BundleFile]

    init(files: [String: BundleFile]) {
        self.files = files
        var children: [String: Set<String>] = [:]
        for path in files.keys {
            guard let (folder, name) = CodeItemLocator.lookedIntoFolder(of: path) else { continue }
            children[folder, default: []].insert(name)
        }
        self.children = children.mapValues { $0.sorted() }
    }

    /// The last names of the folders whose contents ``locate(app:)`` reads: where nested code lives.
    private static let placeNames = places.map { Array($0.folder.utf8) }
    /// The suffixes of the bundles whose contents it reads (to tell an empty one from one with code).
    private static let bundleSuffixes = Set(places.flatMap(\.suffixes)).subtracting([".dylib"]).map { Array($0.utf8) }

    /// The folder holding `path` and `path`'s last name, when ``locate(app:)`` reads that folder (a
    /// place of nested code, or a folder named as a bundle); nil for the thousands of other files
    /// of an app, found by their bytes without making a string.
    static func lookedIntoFolder(of path: String) -> (folder: String, name: String)? {
        var path = path
        return path.withUTF8 { bytes -> (String, String)? in
            guard let folderCount = bytes.lastIndex(of: UInt8(ascii: "/")) else { return nil }
            let folder = UnsafeBufferPointer(rebasing: bytes[..<folderCount])
            guard isLookedInto(folder) else { return nil }
            let name = UnsafeBufferPointer(rebasing: bytes[(folderCount + 1)...])
            return (String(decoding: folder, as: UTF8.self), String(decoding: name, as: UTF8.self))
        }
    }

    /// Whether the folder whose path is `folder` (bytes) is a place of nested code or named as a bundle (its last name).
    static func isLookedInto(_ folder: UnsafeBufferPointer<UInt8>) -> Bool {
        var nameStart = folder.count
        while nameStart > 0 && folder[nameStart - 1] != UInt8(ascii: "/") { nameStart -= 1 }
        let name = UnsafeBufferPointer(rebasing: folder[nameStart...])
        if placeNames.contains(where: { name.elementsEqual($0) }) { return true }
        return bundleSuffixes.contains { suffix in
            name.count >= suffix.count && UnsafeBufferPointer(rebasing: name[(name.count - suffix.count)...]).elementsEqual(suffix)
        }
    }

    /// The app at `key` and everything nested in it.
    func locate(app key: String) -> CodeItemLocation { locate(key, kind: .app, depth: 0) }

    private func locate(_ key: String, kind: CodeItemKind, depth: Int) -> CodeItemLocation {
        var nested: [CodeItemLocation] = []
        if kind != .dylib && depth < CodeItemLocator.maxDepth {
            for (folder, suffixes) in CodeItemLocator.places {
                for name in children[key + "/" + folder] ?? [] {
                    guard let suffix = suffixes.first(where: { name.hasSuffix($0) }), name.count > suffix.count else { continue }
                    let path = key + "/" + folder + "/" + name
                    guard let file = files[path] else { continue }
                    if suffix == ".dylib" {
                        if !file.isDirectory && !file.isSymlink { nested.append(CodeItemLocation(key: path, kind: .dylib, nested: [])) }
                        continue
                    }
                    // An empty folder with a bundle's name holds no code (one fixture ships an empty .framework).
                    guard file.isDirectory, !(children[path] ?? []).isEmpty else { continue }
                    nested.append(locate(path, kind: CodeItemLocator.kind(suffix), depth: depth + 1))
                }
            }
        }
        return CodeItemLocation(key: key, kind: kind, nested: nested)
    }

    static func kind(_ suffix: String) -> CodeItemKind {
        switch suffix {
        case ".app": return .app
        case ".appex": return .appex
        case ".framework": return .framework
        case ".xctest": return .xctest
        case ".xpc": return .xpc
        default: return .bundle
        }
    }

    /// Every file (not folder) under the item at `key`, by its path relative to the item, in no
    /// particular order (the check reports what it finds sorted; sorting an app's thousands of paths
    /// here cost more than listing them).
    func filesUnder(_ key: String) -> [ItemFile] {
        let prefix = key + "/"
        var found: [ItemFile] = []
        for (path, file) in files where !file.isDirectory {
            // The same bytes start the path, unless it writes the same text in another normalization:
            // cut as bytes, not walked as characters for each of the app's thousands of files.
            if let relative = UTF8Search.remainder(of: path, after: prefix) {
                found.append(ItemFile(path: relative, file: file))
            } else if path.hasPrefix(prefix) {
                found.append(ItemFile(path: String(path.dropFirst(prefix.count)), file: file))
            }
        }
        return found
    }
}

/// A file under a code item: its path relative to the item, and what the storage's index says of it
/// (so the checks that go through every file need not look each up again).
struct ItemFile: Sendable {
    var path: String
    var file: BundleFile
}

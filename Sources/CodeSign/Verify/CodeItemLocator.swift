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
            guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { continue }
            let parent = path[..<slash]
            guard CodeItemLocator.isLookedInto(parent) else { continue }
            children[String(parent), default: []].insert(String(path[path.utf8.index(after: slash)...]))
        }
        self.children = children.mapValues { $0.sorted() }
    }

    /// The last names of the folders whose contents ``locate(app:)`` reads: where nested code lives.
    private static let placeNames = Set(places.map(\.folder))
    /// The suffixes of the bundles whose contents it reads (to tell an empty one from one with code).
    private static let bundleSuffixes = Set(places.flatMap(\.suffixes)).subtracting([".dylib"])

    /// Whether `folder` is a place of nested code or named as a bundle (its last name).
    static func isLookedInto(_ folder: Substring) -> Bool {
        let name = folder.utf8.lastIndex(of: UInt8(ascii: "/")).map { folder[folder.utf8.index(after: $0)...] } ?? folder
        if placeNames.contains(String(name)) { return true }
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")) else { return false }
        return bundleSuffixes.contains(String(name[dot...]))
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

    /// Every file (not folder) under the item at `key`, by its path relative to the item, sorted by its
    /// UTF-8 bytes (so the files of a folder come together; a byte order costs a `memcmp`, where
    /// Swift's `<` compares characters).
    func filesUnder(_ key: String) -> [ItemFile] {
        let prefix = key + "/"
        let prefixBytes = prefix.utf8.count
        var found: [ItemFile] = []
        for (path, file) in files where !file.isDirectory && path.hasPrefix(prefix) {
            // The same bytes start the path (unless it writes the same text in another normalization):
            // they are cut as bytes, not walked as characters for each of the app's thousands of files.
            let relative =
                path.utf8.starts(with: prefix.utf8)
                ? String(decoding: path.utf8.dropFirst(prefixBytes), as: UTF8.self) : String(path.dropFirst(prefix.count))
            found.append(ItemFile(path: relative, file: file))
        }
        return found.sorted { UTF8Order.precedes($0.path, $1.path) }
    }
}

/// A file under a code item: its path relative to the item, and what the storage's index says of it
/// (so the checks that go through every file need not look each up again).
struct ItemFile: Sendable {
    var path: String
    var file: BundleFile
}

import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// When applying an environment changes an app's bundle id from `old` to `new`, the bundles the app
/// embeds follow: iOS refuses an extension whose id does not start with the app's id and a dot
/// (`AppexBundleIDNotPrefixed`), and a Watch app or extension that names its app by the old id.
///
/// In each nested bundle's Info.plist, `CFBundleIdentifier`, `WKCompanionAppBundleIdentifier` and
/// `NSExtension:NSExtensionAttributes:WKAppBundleIdentifier` that are `old` or start with `old.` get
/// `new` in place of `old`; values already under `new` stay (applying twice changes nothing); any other
/// value is an error, since the app would not install.
struct NestedBundleRetarget {
    /// The keys of a nested Info.plist that hold the id of the bundle itself, of its app or of a sibling.
    static let keyPaths: [PlistKeyPath] = [
        ["CFBundleIdentifier"], ["WKCompanionAppBundleIdentifier"], ["NSExtension", "NSExtensionAttributes", "WKAppBundleIdentifier"]
    ]

    var old: String
    var new: String

    /// `id` moved under `new`; `id` itself when it is already under `new`; nil when it is under neither.
    /// When one id is under the other (`com.example.app` to `com.example.app.staging`), an id under both
    /// belongs to the longer: `com.example.app.staging.share` is already moved.
    func retargeted(_ id: String) -> String? {
        func isUnder(_ prefix: String) -> Bool { id == prefix || id.hasPrefix(prefix + ".") }
        switch (isUnder(old), isUnder(new)) {
        case (true, true): return new.count >= old.count ? id : new + id.dropFirst(old.count)
        case (true, false): return new + id.dropFirst(old.count)
        case (false, true): return id
        case (false, false): return nil
        }
    }

    /// Each id in `bundles` (and the bundles they embed) that is not `id` nor starts with `id.`, as
    /// `PlugIns/Share.appex: CFBundleIdentifier is "…", not under "…"`: what an app built for `id` would not install with.
    static func idsNotUnder(_ id: String, in bundles: [AppBundle]) -> [String] {
        bundles.flatMap { bundle in
            keyPaths.compactMap { keyPath -> String? in
                guard case .string(let value)? = PlistValue.dictionary(bundle.info)[keyPath], value != id, !value.hasPrefix(id + ".")
                else { return nil }
                return "\(bundle.root): \(keyPath) is \"\(value)\", not under \"\(id)\""
            } + idsNotUnder(id, in: bundle.nested)
        }
    }

    /// Rewrites the Info.plist of every bundle nested in the app folder `app`, each in its own format;
    /// the writes join `files`, and the change of each nested bundle whose Info.plist changes is returned.
    /// Every id that cannot follow is reported together, before anything joins `files`.
    func apply(toApp app: String, into files: inout FileTransaction, limits: PlistLimits) throws -> [EnvironmentApplier.FileChange] {
        var writes: [(path: String, plist: PropertyList)] = []
        var changes: [EnvironmentApplier.FileChange] = []
        var problems: [Diagnostic] = []
        for bundle in NestedBundles.folders(in: app) {
            let path = (bundle as NSString).appendingPathComponent("Info.plist")
            let original = try PropertyList(contentsOf: path, limits: limits)
            guard case .dictionary = original.value else {
                problems.append(
                    Diagnostic.build("an Info.plist must be a dictionary, not \(original.value.kindWithArticle)", file: path, keyPath: ""))
                continue
            }
            var value = original.value
            var changed: [EnvironmentApplier.ValueChange] = []
            for keyPath in Self.keyPaths {
                guard let current = original.value[keyPath] else { continue }
                guard case .string(let id) = current else {
                    problems.append(
                        Diagnostic.build("must be a string, not \(current.kindWithArticle)", file: path, keyPath: keyPath.description))
                    continue
                }
                guard let moved = retargeted(id) else {
                    var problem = Diagnostic.build(
                        "'\(id)' is not under the app's bundle id '\(old)', so it cannot follow it to '\(new)'; "
                            + "iOS would refuse to install the app (AppexBundleIDNotPrefixed)", file: path, keyPath: keyPath.description)
                    problem.hint = "give the nested bundle an id that starts with '\(old).' or '\(new).'"
                    problems.append(problem)
                    continue
                }
                guard moved != id else { continue }
                try value.setValue(.string(moved), at: keyPath)
                changed.append(EnvironmentApplier.ValueChange(key: keyPath.description, old: current, new: .string(moved)))
            }
            guard !changed.isEmpty else {
                files.leaveUnchanged(path)
                continue
            }
            guard original.format != .openStep else {
                problems.append(Diagnostic.build("is an OpenStep plist, which adhocbuild does not rewrite", file: path))
                continue
            }
            writes.append((path, PropertyList(value, format: original.format)))
            changes.append(EnvironmentApplier.FileChange(path: path, action: .updated, values: changed))
        }
        if !problems.isEmpty { throw Diagnostics(problems) }
        for write in writes { try files.write(write.plist, to: write.path) }
        return changes
    }
}

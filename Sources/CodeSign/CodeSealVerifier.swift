import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// Verifies the seal of an app and of every code item nested in it, as `codesign --verify --deep --strict`
/// does: code pages, special slots, sealed resources, nested code, identifiers.
///
/// Items are checked inside out, one executable in memory at a time; pages and files are hashed on
/// `threads` workers. What a signature is trusted for (CMS, signer, profile) is left to ``trustCheck``.
public struct CodeSealVerifier: Sendable {
    /// How many threads hash pages and files.
    public var threads: Int
    /// Checks each signed item's signature beyond its seal; its strings become problems of the item.
    public var trustCheck: SignatureTrustCheck?

    public init(threads: Int = ProcessInfo.processInfo.activeProcessorCount, trustCheck: SignatureTrustCheck? = nil) {
        self.threads = max(1, threads)
        self.trustCheck = trustCheck
    }

    /// Opens an `.ipa`, an `.app` folder or an `.xcarchive` and verifies the app in it; an input that
    /// cannot be opened is an error, everything found inside is a problem in the report.
    public func verify(path: String) throws -> CodeSealReport {
        try verify(AppPackage.open(path))
    }

    /// Verifies the app of an opened package.
    public func verify(_ package: AppPackage) throws -> CodeSealReport {
        let storage = package.app.storage
        let reader = BundleFileReader(storage: storage, isArchive: package.isArchive)
        let locator = CodeItemLocator(files: storage.files)
        let display = CodeSealVerifier.displayPath(package)
        var sealed: [String: CodeItemSeal] = [:]
        var items: [CodeItemSeal] = []
        for location in locator.locate(app: package.app.root).insideOut {
            let nested = Dictionary(
                uniqueKeysWithValues: location.nested.map { item in
                    (String(item.key.dropFirst(location.key.count + 1)), sealed[item.key]?.codeDirectories.map(\.cdhash) ?? [])
                })
            let item = CodeItemCheck(
                location: location, displayPath: display(location.key), reader: reader, locator: locator, nestedCdhashes: nested,
                threads: threads, trustCheck: trustCheck
            ).run()
            sealed[location.key] = item
            items.append(item)
        }
        return CodeSealReport(input: package.path, items: items)
    }

    /// How the user sees a storage path: as is inside an ipa (`Payload/…`); for a folder, from the
    /// folder given down (`Test.app/…`, `My.xcarchive/Products/Applications/Test.app/…`).
    static func displayPath(_ package: AppPackage) -> @Sendable (String) -> String {
        guard !package.isArchive else { return { $0 } }
        let given = URL(fileURLWithPath: package.path).standardizedFileURL.path
        let app = URL(fileURLWithPath: package.app.storage.location).standardizedFileURL.path
        let name = (given as NSString).lastPathComponent
        let appPrefix: String
        if app == given {
            appPrefix = name
        } else if app.hasPrefix(given + "/") {
            appPrefix = name + app.dropFirst(given.count)
        } else {
            appPrefix = (app as NSString).lastPathComponent
        }
        let root = package.app.root
        return { key in key == root ? appPrefix : key.hasPrefix(root + "/") ? appPrefix + key.dropFirst(root.count) : key }
    }
}

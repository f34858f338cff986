import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// Verifies the seal of an app and of every code item nested in it, as `codesign --verify --deep --strict`
/// does: code pages, special slots, sealed resources, nested code, identifiers.
///
/// Items are checked inside out, one executable in memory at a time; pages and files are hashed on
/// `threads` workers. What a signature is trusted for (CMS, signer, profile) is left to ``trustHook``.
public struct CodeSealVerifier: Sendable {
    /// How many threads hash pages and files.
    public var threads: Int
    /// Checks each signed item's signature beyond its seal; its strings become problems of the item.
    public var trustHook: SignatureTrustHook?
    /// The limits the input is opened with.
    public var limits: ReaderLimits = .standard

    public init(threads: Int = Processors.usable, trustHook: SignatureTrustHook? = nil) {
        self.threads = max(1, threads)
        self.trustHook = trustHook
    }

    /// Opens an `.ipa`, an `.app` folder or an `.xcarchive` and verifies the app in it; an input that
    /// cannot be opened is an error, everything found inside is a problem in the report.
    public func verify(path: String) throws -> CodeSealReport {
        guard FileIO.kind(of: path) == .folder, let app = try? IPAPackager.locateApp(path).app else {
            return try verify(AppPackage.open(path, limits: limits))
        }
        // An app on disk: its folder is walked on another thread while this one reads the main
        // executable and queues its pages, so hashing starts before the listing ends; the files
        // the walk lists are hashed as it goes (FolderDigestPrefetch), before the seal is parsed.
        // Its index says only what kind each file is: every file the seal names is opened anyway,
        // and an `lstat` of each cost as much as a tenth of the check.
        let prefetch = FolderDigestPrefetch(app: app, threads: threads)
        defer { prefetch?.finish() }
        // The walk, like the seal's parse, runs on a thread of its own: on the pool's threads it
        // held one of the few the hashing jobs run on, and those waited for it.
        let opened = BackgroundResult(thread: "adhocbuild.app-listing") { [limits] in
            try AppPackage.open(
                path, limits: limits, folderDetail: .kinds, listedFiles: prefetch.map { prefetch in { prefetch.listed($0) } })
        }
        let early = EarlyExecutableVerifier.start(app: app, limits: limits.plist) { executable, type in
            prefetch?.begin(executable: executable, type: type)
        }
        // Not of the shape the early check takes: the check finds nothing hashed ahead.
        if early == nil { prefetch?.finish() }
        return try verify(opened.get(), early: early, folderPrefetch: prefetch)
    }

    /// Verifies the app of an opened package.
    public func verify(_ package: AppPackage) throws -> CodeSealReport {
        try verify(package, early: nil)
    }

    /// Verifies the app of an opened folder, the digests of its files taken from `known` where it
    /// holds them (see ``CodeSignatureVerifier/verify(_:known:)``).
    func verify(_ package: AppPackage, known: DigestCache) throws -> CodeSealReport {
        try verify(package, early: nil, known: known)
    }

    /// Verifies the app of an opened package, taking its main executable from `early` when that
    /// was started on the same app, and the digests of files left in an ipa from `known`.
    func verify(
        _ package: AppPackage, early: EarlyExecutableVerifier?, known: DigestCache? = nil, folderPrefetch: FolderDigestPrefetch? = nil
    ) throws -> CodeSealReport {
        let early = early.flatMap { early -> EarlyExecutableVerifier? in
            guard !package.isArchive, Self.samePath(early.app, package.app.storage.location) else {
                // Started on another app: its jobs finish, unused.
                try? early.pagePool.wait()
                return nil
            }
            return early
        }
        // Files hashed as the folder was listed serve only an index of that same listing, for the app
        // the early start took; otherwise the prefetch stops now rather than hash on unused.
        let folderPrefetch = folderPrefetch.flatMap { prefetch -> FolderDigestPrefetch? in
            guard early != nil, Self.isIndexedByKinds(package) else {
                prefetch.finish()
                return nil
            }
            return prefetch
        }
        let storage = package.app.storage
        // In an ipa the app's resources are hashed while its executable is inflated (see ResourceDigestPrefetch).
        let prefetch =
            package.isArchive
            ? ResourceDigestPrefetch.start(app: package.app, isArchive: true, threads: threads - 1, limits: limits.plist) : nil
        defer { prefetch?.finish() }
        let reader = BundleFileReader(
            storage: storage, isArchive: package.isArchive, limits: limits.plist, preparsed: early?.codeResources, prefetch: prefetch,
            folderPrefetch: folderPrefetch,
            known: known)
        let locator = CodeItemLocator(files: storage.files)
        let display = CodeSealVerifier.displayPath(package)
        var sealed: [String: CodeItemReport] = [:]
        var items: [CodeItemReport] = []
        for location in locator.locate(app: package.app.root).insideOut {
            let nested = Dictionary(
                uniqueKeysWithValues: location.nested.map { item in
                    (String(item.key.dropFirst(location.key.count + 1)), sealed[item.key]?.codeDirectories.map(\.cdhash) ?? [])
                })
            let item = CodeItemVerifier(
                location: location, displayPath: display(location.key), reader: reader, locator: locator, nestedCdhashes: nested,
                threads: threads, trustHook: trustHook, early: location.key == package.app.root ? early : nil
            ).verify()
            sealed[location.key] = item
            items.append(item)
        }
        // The index and the seals built for the check are torn down on another thread: the report is ready.
        let leftovers = Leftover((reader, locator, early))
        Background.run { leftovers.value = nil }
        return CodeSealReport(input: package.path, items: items)
    }

    /// Whether the folder's index is the walk by kinds that handed its files to the prefetch (its
    /// files have no sizes), not the full walk it gives way to for anything out of the ordinary: the
    /// prefetch hashed only files of that walk.
    static func isIndexedByKinds(_ package: AppPackage) -> Bool {
        package.app.storage.files[package.app.root + "/Info.plist"]?.size == BundleFile.unknownSize
    }

    private static func samePath(_ one: String, _ other: String) -> Bool {
        FileIO.standardized(one) == FileIO.standardized(other)
    }

    /// How the user sees a storage path: as is inside an ipa (`Payload/…`); for a folder, from the
    /// folder given down (`Test.app/…`, `My.xcarchive/Products/Applications/Test.app/…`).
    static func displayPath(_ package: AppPackage) -> @Sendable (String) -> String {
        guard !package.isArchive else { return { $0 } }
        let given = FileIO.standardized(package.path)
        let app = FileIO.standardized(package.app.storage.location)
        let name = FileIO.split(given).name
        let appPrefix: String
        if app == given {
            appPrefix = name
        } else if app.hasPrefix(given + "/") {
            appPrefix = name + app.dropFirst(given.count)
        } else {
            appPrefix = FileIO.split(app).name
        }
        let root = package.app.root
        return { key in key == root ? appPrefix : key.hasPrefix(root + "/") ? appPrefix + key.dropFirst(root.count) : key }
    }
}

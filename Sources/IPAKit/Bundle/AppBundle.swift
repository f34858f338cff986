import Foundation
import PlistKit
import SystemSupport

/// An app bundle (or an extension inside one): its Info.plist, executable, provisioning profile,
/// extensions and frameworks, read from a folder, an `.xcarchive` or an `.ipa`.
public struct AppBundle: Sendable {
    /// Where the bundle's files are.
    public let storage: BundleStorage
    /// The bundle's path inside the storage (`Payload/Demo.app`, `Demo.app/PlugIns/Share.appex`).
    public let root: String
    public let info: PlistDictionary
    public let infoFormat: PlistFormat
    /// App extensions, Watch apps and App Clips inside this bundle.
    public let nested: [AppBundle]
    /// The limits its plists (Info.plist, the provisioning profile's) are read with.
    public let plistLimits: PlistLimits

    public var name: String { (root as NSString).lastPathComponent }
    public var bundleIdentifier: String? { info["CFBundleIdentifier"]?.stringValue }
    public var shortVersion: String? { info["CFBundleShortVersionString"]?.stringValue }
    public var buildVersion: String? { info["CFBundleVersion"]?.stringValue }
    public var displayName: String? { info["CFBundleDisplayName"]?.stringValue ?? info["CFBundleName"]?.stringValue }
    public var executableName: String? { info["CFBundleExecutable"]?.stringValue }
    public var minimumOSVersion: String? { info["MinimumOSVersion"]?.stringValue ?? info["LSMinimumSystemVersion"]?.stringValue }
    public var deviceFamilies: [Int] { info["UIDeviceFamily"]?.arrayValue?.compactMap { $0.integerValue?.int } ?? [] }
    public var supportedPlatforms: [String] { info["CFBundleSupportedPlatforms"]?.arrayValue?.compactMap(\.stringValue) ?? [] }

    /// `iphoneos`, `iphonesimulator`, … from `DTPlatformName`, else from the supported platforms.
    public var platform: String? {
        if let name = info["DTPlatformName"]?.stringValue { return name }
        return supportedPlatforms.first?.lowercased()
    }

    /// True for a simulator build, which cannot be installed on a device.
    public var isSimulatorBuild: Bool {
        (platform?.contains("simulator") ?? false) || supportedPlatforms.contains { $0.lowercased().contains("simulator") }
    }

    /// Device families in words: iPhone, iPad, Apple TV, Apple Watch.
    public var deviceFamilyNames: [String] {
        deviceFamilies.map { family in
            switch family {
            case 1: return "iPhone"
            case 2: return "iPad"
            case 3: return "Apple TV"
            case 4: return "Apple Watch"
            case 6: return "Mac (Catalyst)"
            case 7: return "Apple Vision"
            default: return "family \(family)"
            }
        }
    }

    public func file(_ relative: String) -> BundleFile? { storage.files[root + "/" + relative] }
    public func read(_ relative: String) throws -> Data { try storage.read(root + "/" + relative) }

    /// The bundle's files, relative to its top, with nested bundles' files included.
    public var relativePaths: [String] {
        storage.files.keys.filter { $0.hasPrefix(root + "/") }.map { String($0.dropFirst(root.count + 1)) }.sorted()
    }

    /// Total bytes of the bundle's files.
    public var size: Int64 {
        storage.files.filter { $0.key.hasPrefix(root + "/") && !$0.value.isDirectory }.reduce(0) { $0 + $1.value.size }
    }

    public var executable: BundleFile? { executableName.flatMap { file($0) } }

    /// The names of the frameworks in `Frameworks/`.
    public var frameworks: [String] {
        relativePaths.filter { path in
            path.hasPrefix("Frameworks/") && path.split(separator: "/").count == 2
                && (path.hasSuffix(".framework") || path.hasSuffix(".dylib"))
        }.map { String($0.dropFirst("Frameworks/".count)) }
    }

    /// The embedded provisioning profile, nil when there is none, or the error reading it.
    public func profile() -> Result<ProvisioningProfile, Diagnostic>? {
        for name in ["embedded.mobileprovision", "Contents/embedded.provisionprofile"] where file(name) != nil {
            let (file, entry) = storage.place(of: root + "/" + name)
            do {
                return .success(try ProvisioningProfile(data: try read(name), limits: plistLimits))
            } catch var error as Diagnostic where error.is(IPAProblem.self) {
                if error.file == nil {
                    error.file = file
                    if error.entry == nil, let entry { error.places.insert(.entry(entry), at: 0) }
                }
                return .failure(error)
            } catch {
                return .failure(Diagnostic.ipa(FoundationError.line(error), file: file, entry: entry))
            }
        }
        return nil
    }

    /// Reads the bundle at `root` in `storage` and the bundles nested in it.
    init(storage: BundleStorage, root: String, depth: Int = 0, plistLimits: PlistLimits = .default) throws {
        self.storage = storage
        self.root = root
        self.plistLimits = plistLimits
        let infoPath = root + "/Info.plist"
        guard storage.files[infoPath] != nil else {
            let (file, entry) = storage.place(of: root)
            throw Diagnostic.ipa("has no Info.plist", file: file, entry: entry)
        }
        let plist: PropertyList
        do { plist = try PropertyList(data: try storage.read(infoPath), limits: plistLimits) } catch let error as Diagnostic
            where error.is(PlistProblem.self)
        {
            let (file, entry) = storage.place(of: infoPath)
            throw Diagnostic.ipa("is not a valid plist: \(error.description)", file: file, entry: entry)
        }
        guard case .dictionary(let dictionary) = plist.value else {
            let (file, entry) = storage.place(of: infoPath)
            throw Diagnostic.ipa("is not a dictionary", file: file, entry: entry)
        }
        info = dictionary
        infoFormat = plist.format
        var nested: [AppBundle] = []
        if depth < 3 {
            for (folder, suffix) in [("PlugIns", ".appex"), ("Extensions", ".appex"), ("Watch", ".app"), ("AppClips", ".app")] {
                // Every storage indexes a folder that holds anything (an archive's implied ones too),
                // as a folder or as whatever entry took its name: without one, the app's thousands of
                // paths are not searched for it.
                guard storage.files[root + "/" + folder] != nil else { continue }
                let prefix = root + "/" + folder + "/"
                let names = Set(
                    storage.files.keys.filter { $0.hasPrefix(prefix) }.compactMap { path -> String? in
                        let rest = path.dropFirst(prefix.count)
                        guard let first = rest.split(separator: "/").first, first.hasSuffix(suffix) else { return nil }
                        return String(first)
                    }
                ).sorted()
                for name in names where storage.files[prefix + name + "/Info.plist"] != nil {
                    nested.append(try AppBundle(storage: storage, root: prefix + name, depth: depth + 1, plistLimits: plistLimits))
                }
            }
        }
        self.nested = nested
    }
}

/// What an `.ipa`, `.app` or `.xcarchive` holds.
public struct AppPackage: Sendable {
    /// The path given.
    public var path: String
    public var app: AppBundle
    /// Top-level folders of an ipa besides `Payload` (`SwiftSupport`, `Symbols`, …).
    public var extras: [String]
    public var isArchive: Bool

    /// Every entry of an ipa whose data does not match its CRC or size, with what is wrong, read
    /// through the reader the package was opened with (``ZipArchiveReader/damagedEntries()``);
    /// none for a folder.
    public func damagedEntries() -> [(name: String, problem: String)] {
        (app.storage as? ArchiveStorage)?.reader.damagedEntries() ?? []
    }

    /// Opens an `.ipa` (by content, through libzip), an `.app` folder or an `.xcarchive`.
    /// Its plists are read with `limits.plist`, an ipa with `limits.archive`; a folder's index holds
    /// what `folderDetail` asks of each file (an ipa's always holds everything). `listedFiles` is
    /// handed the keys of a folder's regular files as the walk by kinds lists them (see
    /// ``FolderIndexDetail/kinds``); it may be handed some and then none more, when that walk gives
    /// way to the full one.
    public static func open(
        _ path: String, limits: ReaderLimits = .standard, folderDetail: FolderIndexDetail = .full,
        listedFiles: (([String]) -> Void)? = nil
    ) throws -> AppPackage {
        guard let kind = FileIO.kind(of: path) else { throw Diagnostic.ipa("no such file", file: path) }
        if kind == .folder {
            let (app, _) = try IPAPackager.locateApp(path)
            let storage = try FolderStorage(app: app, detail: folderDetail, listedFiles: listedFiles)
            let bundle = try AppBundle(storage: storage, root: (app as NSString).lastPathComponent, plistLimits: limits.plist)
            return AppPackage(path: path, app: bundle, extras: [], isArchive: false)
        }
        let reader = try ZipArchiveReader.reusing(path, limits: limits.archive)
        let appName = try reader.payloadApp()
        let storage = ArchiveStorage(reader)
        let tops = Set(storage.files.keys.map { String($0[..<($0.utf8.firstIndex(of: UInt8(ascii: "/")) ?? $0.endIndex)]) })
        let bundle = try AppBundle(storage: storage, root: "Payload/" + appName, plistLimits: limits.plist)
        return AppPackage(path: path, app: bundle, extras: tops.subtracting(["Payload", "__MACOSX"]).sorted(), isArchive: true)
    }
}

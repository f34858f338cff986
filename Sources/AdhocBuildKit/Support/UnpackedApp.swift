import CodeSign
import Foundation
import IPAKit
import SystemSupport

/// An `.ipa`, or a `.zip` holding one `.app` (as CI artifacts often are), unpacked into a work
/// folder to be changed (an environment, a build number, a new signature) and packed again.
///
/// Each file is hashed as it is unpacked, so signing reads again only what changed, and every file
/// still as it was unpacked goes into the new ipa as its compressed bytes, unchanged (see
/// ``CarriedEntries``). What an ipa holds beside `Payload` (SwiftSupport, Symbols, BCSymbolMaps,
/// iTunesMetadata.plist) goes back in beside it.
///
/// Unpacked for a new ipa (`leaving`), the folder holds only what the work may read or change:
/// every folder and link, and the files ``mayLeave(_:)`` does not let stay in the archive; the
/// others (most of an app: images, nibs, fonts, translations) are read to hash and check them, then
/// taken from the archive when the ipa is made, and sealed from their digests when it is signed.
/// Such a folder is not a whole app: only signing (with ``digests``) and packaging (with
/// ``packaging(_:)``) may read it as one.
struct UnpackedApp {
    /// The work folder the archive was unpacked into.
    var folder: String
    /// The app in it (`<folder>/Payload/<Name>.app` for an ipa).
    var app: String
    /// What the ipa held beside `Payload`, as paths in the work folder.
    var besidePayload: [String]
    var carried: CarriedEntries
    var digests: DigestCache

    /// Whether `path` is an archive this type unpacks: a file (not a folder) named `.ipa` or `.zip`.
    static func isArchive(_ path: String) -> Bool {
        let lowered = path.lowercased()
        return FileIO.kind(of: path) == .file && (lowered.hasSuffix(".ipa") || lowered.hasSuffix(".zip"))
    }

    /// Unpacks `input` into `folder` (made here; it must not exist). An `.ipa` must hold
    /// `Payload/<Name>.app`; a `.zip` either that or exactly one `<Name>.app` folder anywhere. The
    /// archive is read with `limits`. With `leaving`, the files no step reads stay in the archive.
    static func unpack(_ input: String, into folder: String, limits: ZipArchiveReader.Limits, leaving: Bool = false) throws
        -> UnpackedApp
    {
        let reader = try ZipArchiveReader.reusing(input, limits: limits)
        let appEntry = try locate(input, reader)
        try FileIO.createFolder(folder)
        let digests = DigestCache()
        let carried = try reader.unpack(
            to: folder, threads: Processors.usable, observer: digests,
            leaving: leaving ? DigestCache.leavingRule(mayLeave: mayLeave) : nil)
        let app = folder + "/" + appEntry
        guard FileIO.kind(of: app) == .folder else { throw Diagnostic.build("holds \(appEntry), which is not a folder", file: input) }
        var beside: [String] = []
        if appEntry.hasPrefix("Payload/") {
            let top = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            beside = top.filter { $0 != "Payload" }.sorted(by: UTF8Order.precedes).map { folder + "/" + $0 }
        }
        return UnpackedApp(folder: folder, app: app, besidePayload: beside, carried: carried, digests: digests)
    }

    /// Names of files a step of a change may read or write, whatever the app, so always unpacked:
    /// the Info.plist of every bundle, `environment.plist`, profiles, seals, dylibs. Files at the top
    /// of the archive (beside `Payload`) are listed from the folder, so they are unpacked too.
    static let namesWritten: Set<String> = [
        "Info.plist", EnvironmentApplier.environmentFileName, "embedded.mobileprovision", "CodeResources"
    ]
    static let suffixesWritten = [".dylib", ".mobileprovision", ".provisionprofile"]

    /// Whether the entry (a regular file) may stay in the archive while the app is changed: nothing
    /// but the seal reads it (an executable or any Mach-O file is signed, and is written; see
    /// ``DigestCache/leavingRule(mayLeave:)``). Only by what it is called and its execute bits, so
    /// a rule here cannot be fooled by content: a file that is written is merely slower.
    @Sendable static func mayLeave(_ entry: ZipArchiveReader.Entry) -> Bool {
        guard let slash = entry.name.lastIndex(of: "/"), !entry.isExecutable else { return false }
        let name = entry.name[entry.name.index(after: slash)...]
        return !namesWritten.contains(String(name)) && !suffixesWritten.contains(where: { name.hasSuffix($0) })
            && !UTF8Search.contains(entry.name, "_CodeSignature/")
    }

    /// The app's folder in the archive at `input` (`Payload/<Name>.app`), read from its directory (with
    /// `limits` unless `opened` is given).
    @discardableResult
    static func locate(_ input: String, _ opened: ZipArchiveReader? = nil, limits: ZipArchiveReader.Limits = .standard) throws -> String {
        let reader = try opened ?? ZipArchiveReader.reusing(input, limits: limits)
        let hasPayload = reader.entries.contains { $0.name.hasPrefix("Payload/") }
        if input.lowercased().hasSuffix(".ipa") || hasPayload {
            return "Payload/" + (try reader.payloadApp())
        }
        return try zippedApp(in: reader.entries, archive: input)
    }

    /// The one `<Name>.app` folder a zip holds (the shallowest name ending in `.app` on each path).
    static func zippedApp(in entries: [ZipArchiveReader.Entry], archive: String) throws -> String {
        var apps = Set<String>()
        for entry in entries {
            let parts = entry.name.split(separator: "/")
            guard let end = parts.firstIndex(where: { $0.lowercased().hasSuffix(".app") && $0.count > 4 }) else { continue }
            if end < parts.count - 1 || entry.isDirectory { apps.insert(parts[...end].joined(separator: "/")) }
        }
        guard let app = apps.first else { throw Diagnostic.build("holds no <Name>.app folder (nor Payload/<Name>.app)", file: archive) }
        guard apps.count == 1 else {
            throw Diagnostic.build(
                "holds \(apps.count) apps (\(apps.sorted().joined(separator: ", "))); give a zip holding one", file: archive)
        }
        return app
    }

    /// Packaging options for the new ipa: unchanged entries carried, what was beside Payload put back.
    func packaging(_ base: IPAPackager.Options) -> IPAPackager.Options {
        var options = base
        options.carried = carried
        options.extraItems = besidePayload
        return options
    }
}

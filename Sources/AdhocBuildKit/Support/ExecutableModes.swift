import CodeSign
import Foundation
import PlistKit
import SystemSupport

/// Execute permissions that a CI artifact lost (GitHub's upload-artifact and download-artifact drop
/// file modes), given back before an app is signed and packaged: iOS will not run code without them,
/// and a signature made over a file that is not executable is checked by nobody until install.
enum ExecutableModes {
    /// Bundle folders whose Info.plist names an executable.
    static let bundleSuffixes = [".app", ".appex", ".framework", ".xctest", ".xpc"]

    /// Gives the execute permission back to each Mach-O in `app` that should have it and lost it:
    /// every bundle's `CFBundleExecutable` and every `.dylib`. Returns their paths relative to `app`.
    /// Links are not followed; files that are not Mach-O are left alone. Info.plists are read with `limits`.
    static func restore(in app: String, limits: PlistLimits) throws -> [String] {
        var candidates: [String] = []
        if let executable = try executable(ofBundle: app, limits: limits) { candidates.append(executable) }
        try addCandidates(in: app, relative: "", limits: limits, to: &candidates)
        var restored: [String] = []
        for relative in Set(candidates).sorted() {
            let path = app + "/" + relative
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o100 == 0, isMachO(path) else { continue }
            // Execute wherever reading is allowed (0644 becomes 0755), as Xcode writes them.
            let mode = (info.st_mode & 0o7777) | ((info.st_mode & 0o444) >> 2) | 0o100
            if info.st_nlink > 1 {
                // A hard link to the user's build (``BuildCopy``): a copy with the mode is renamed over it.
                try replace(path, mode: mode)
            } else if chmod(path, mode) != 0 {
                throw Diagnostic.io("cannot be made executable: \(SystemError.describe(errno))", file: path)
            }
            restored.append(relative)
        }
        return restored
    }

    /// Adds to `candidates` the paths under `folder` (`relative` to the app) that name code needing
    /// the execute permission: every `.dylib`, and the executable each bundle's Info.plist names.
    /// Folders are known from their listings (no `lstat` per file; an app has thousands); links are
    /// not followed, and a folder that cannot be listed is passed over (the signer names it).
    private static func addCandidates(in folder: String, relative: String, limits: PlistLimits, to candidates: inout [String]) throws {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        let listing = try? FileIO.listing(of: descriptor, folder: folder)
        close(descriptor)
        for entry in listing ?? [] {
            let inner = relative.isEmpty ? entry.name : relative + "/" + entry.name
            let path = folder + "/" + entry.name
            if entry.name.hasSuffix(".dylib") { candidates.append(inner) }
            if bundleSuffixes.contains(where: { entry.name.hasSuffix($0) }), let executable = try executable(ofBundle: path, limits: limits)
            {
                candidates.append(inner + "/" + executable)
            }
            var isFolder = entry.type == DT_DIR
            if entry.type == DT_UNKNOWN {
                var info = stat()
                isFolder = lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
            }
            if isFolder { try addCandidates(in: path, relative: inner, limits: limits, to: &candidates) }
        }
    }

    /// Replaces the file at `path` with a copy of it that has `mode`, leaving the file it was (and
    /// every other link to it) as it was.
    static func replace(_ path: String, mode: mode_t) throws {
        let writer = try AtomicFileWriter(path: path, mode: mode)
        do {
            let bytes: Data
            do { bytes = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) } catch {
                throw FoundationError.fileError(error, action: "cannot be read")
            }
            try inFile(path, only: FileProblem.self) { try bytes.withUnsafeBytes { try FileIO.writeAll(writer.fileDescriptor, $0) } }
            try writer.commit()
        } catch {
            writer.abort()
            throw error
        }
    }

    /// The executable a bundle's Info.plist names, if it has one that is a plain name.
    static func executable(ofBundle bundle: String, limits: PlistLimits) throws -> String? {
        let info = bundle + "/Info.plist"
        guard FileIO.kind(of: info) == .file else { return nil }
        let plist = try? PropertyList(data: try FileIO.read(info, limit: InputLimits.bundleInfoPlist), limits: limits)
        guard let name = plist?.value["CFBundleExecutable"]?.stringValue, !name.isEmpty, !name.contains("/"), name != "..", name != "."
        else { return nil }
        return name
    }

    /// Whether the file at `path` starts as Mach-O does (``MachOFile/looksLikeMachO(_:)``).
    static func isMachO(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return MachOFile.looksLikeMachO((try? handle.read(upToCount: 4)).map { Array($0) } ?? [])
    }

    /// The warning for files `restore(in:)` fixed, named as `shown` (the app as the user knows it).
    static func warning(_ restored: [String], shown: String) -> Diagnostic? {
        guard !restored.isEmpty else { return nil }
        let listed = restored.prefix(10).map { shown + "/" + $0 }.joined(separator: ", ")
        let more = restored.count > 10 ? " and \(restored.count - 10) more" : ""
        return Diagnostic.build(
            "\(listed)\(more) had lost the execute permission (CI artifact uploads drop file modes); given back before signing",
            severity: .warning)
    }
}

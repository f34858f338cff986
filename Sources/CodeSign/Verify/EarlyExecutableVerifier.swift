import Foundation
import PlistKit
import SystemSupport

/// The main executable of an app on disk, checked before the app's folder is listed: its Info.plist
/// and `_CodeSignature/CodeResources` are read, the seal parsed on another thread and the code pages
/// queued for hashing straight away, so the parse and the hashing run while the folder is walked.
///
/// Only the common shape is taken early: Info.plist, the executable it names and CodeResources (or
/// its absence) as plain files, and an executable that maps and parses as Mach-O. Anything else
/// gives nil and is left to ``CodeItemVerifier``, which reads the same files again and reports what it
/// finds; what it is handed here is what it would have read.
struct EarlyExecutableVerifier {
    /// The `.app` folder, as given to ``start(app:)``.
    let app: String
    let infoData: Data
    let info: PlistDictionary
    /// The executable's name (CFBundleExecutable).
    let executable: String
    let codeResourcesData: Data?
    /// ``codeResourcesData`` parsed (or why it cannot be), on another thread from the moment it was read.
    let codeResources: PreparsedCodeResources?
    /// The executable's signature, its page jobs queued on ``pagePool``.
    let seal: ExecutableReport
    let pagePool: WorkerPool

    /// Reads and maps what the app at `app` (a `.app` folder) signs, and queues its code pages; nil
    /// when the app is not of the common shape or anything cannot be read. `sealRead` is told the
    /// executable's name and the hash its resources are most likely sealed with (see
    /// ``resourceHashType``) as soon as CodeResources is read, before the executable is mapped.
    static func start(
        app: String, limits: PlistLimits = .default, sealRead: ((_ executable: String, _ resourceHash: HashType) -> Void)? = nil
    ) -> EarlyExecutableVerifier? {
        let infoPath = app + "/Info.plist"
        guard isRegularFile(infoPath), let infoData = try? FileIO.read(infoPath),
            let info = (try? PropertyList(data: infoData, limits: limits))?.value.dictionaryValue,
            let executable = info["CFBundleExecutable"]?.stringValue, !executable.isEmpty, !executable.contains("/"),
            isRegularFile(app + "/" + executable)
        else { return nil }
        let codeResourcesPath = app + "/_CodeSignature/CodeResources"
        var codeResourcesData: Data?
        var codeResourcesInfo = stat()
        if lstat(codeResourcesPath, &codeResourcesInfo) == 0 {
            guard codeResourcesInfo.st_mode & S_IFMT == S_IFREG, let data = try? FileIO.read(codeResourcesPath)
            else { return nil }
            codeResourcesData = data
        } else if errno != ENOENT {
            return nil
        }
        let codeResources = codeResourcesData.map { PreparsedCodeResources($0, limits: limits) }
        if let codeResourcesData { sealRead?(executable, resourceHashType(codeResourcesData)) }
        guard let map = try? MappedExecutable(path: app + "/" + executable), MachOFile.looksLikeMachO(map.read(0, 4)),
            let machO = try? MachOFile(size: map.bytes.count, read: map.read)
        else { return nil }
        let pagePool = WorkerPool(label: "adhocbuild.codesign.pages", capacity: CodeItemVerifier.pageJobCapacity)
        let seal = ExecutableReport(
            machO: machO, map: map, executable: executable,
            files: SpecialSlotFiles(infoPlist: infoData, codeResources: codeResourcesData, isBundle: true), pool: pagePool)
        return EarlyExecutableVerifier(
            app: app, infoData: infoData, info: info, executable: executable, codeResourcesData: codeResourcesData,
            codeResources: codeResources, seal: seal, pagePool: pagePool)
    }

    /// The digest the seal in `codeResources` most likely asks of each resource, for hashing files
    /// before the seal is parsed: SHA-256 when it names a `hash2` anywhere, else SHA-1 (a version 1
    /// seal, or Xcode 6's bare hashes). A guess only: what the parsed seal asks is what the check
    /// compares.
    static func resourceHashType(_ codeResources: Data) -> HashType {
        var part = "hash2"
        let named = codeResources.withUnsafeBytes { bytes in part.withUTF8 { UTF8Search.contains(bytes, UnsafeRawBufferPointer($0)) } }
        return named ? .sha256 : .sha1
    }

    /// Whether `path` is a regular file itself (not a link to one).
    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }
}

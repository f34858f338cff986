import Compression
import Foundation
import PlistKit
import SystemSupport

/// Turns a built `.app` or an `.xcarchive` into an `.ipa`.
///
/// Entries are deflated on all cores — a large file in 1 MiB chunks joined into one stream, each
/// chunk by libdeflate or zlib as ``DeflateMethod`` picks for its content, so the ipa comes out
/// within 1% of what `zip` makes at the same level — spooled to a temporary file, and framed by
/// libzip as Apple's tools frame an ipa. The archive is written under a temporary name, reopened
/// and checked entry by entry (unless `verify` is off), and only then renamed into place.
public struct IPAPackager {
    public struct Options: Sendable {
        /// 0 stores; 1–9 deflate (`defaultLevel` unless set).
        public var level: Int = Options.defaultLevel
        /// 6, as `zip`. A constant, so the help can show it without making an `Options`, whose
        /// `threads` asks `ProcessInfo` for the processor count (cgroup files read on every start).
        public static let defaultLevel = 6
        /// Fixed times and normalised modes, so the same input gives the same bytes anywhere.
        public var reproducible = false
        /// The time for every entry when reproducible (`SOURCE_DATE_EPOCH`); 1980-01-01 otherwise.
        public var sourceDateEpoch: Int64?
        /// A provisioning profile to embed as `embedded.mobileprovision`.
        public var profile: String?
        /// The limits ``profile`` is read with.
        public var profileLimits: PlistLimits = .default
        /// Files and folders put at the top of the ipa beside `Payload`, each under its own name:
        /// what an ipa being re-signed held there (`SwiftSupport`, `Symbols`, `iTunesMetadata.plist`, …).
        public var extraItems: [String] = []
        public var verify = true
        /// The entries of the ipa the input was unpacked from: a file still as it was unpacked goes
        /// in as its stored bytes, not compressed again (when `level` is above 0), a large one that
        /// changed (a re-signed executable) keeps the blocks of its old stream that still hold its
        /// bytes (``DeflateSplice``), and the ipa's entries keep their order, new ones following the
        /// entry before them in the folder.
        public var carried: CarriedEntries?
        /// Files compressed ahead (``compressAhead(_:spoolIn:)``): one still as it was then goes in
        /// as it was compressed, and its spool takes what is compressed now.
        public var ahead: CompressedAhead?
        public var threads = Processors.usable
        /// Called from the packaging thread with bytes read so far and the total.
        public var progress: (@Sendable (Int64, Int64) -> Void)?
        /// Called with the archive's temporary path once it is written, before it is checked (tests
        /// damage it here, to prove the check finds it).
        var afterWriting: (@Sendable (String) throws -> Void)?

        public init() {}
    }

    public struct Report: Sendable {
        public var output: String
        public var entries: Int
        public var uncompressedBytes: Int64
        public var compressedBytes: Int64
        /// What the command tells but does not stop for, each a ``Diagnostic`` of severity `.warning`.
        public var warnings: [Diagnostic]
        /// True when the ipa went to this process's standard output (`-`, `/dev/stdout`, `/dev/fd/1`).
        public var wentToStandardOutput = false
    }

    static let chunkSize = 1 << 20

    public var options: Options

    public init(options: Options = Options()) { self.options = options }

    /// `path` with `.`, `..` and symbolic links resolved, so a bundle given as `.`, `App.app/.` or
    /// through a link is named by its own folder name; `path` itself when it cannot be resolved.
    public static func canonicalPath(_ path: String) -> String {
        FileIO.realPath(path) ?? (path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path)
    }

    /// The path a bundle folder is known by: as given when its name is a bundle's (`App.app`,
    /// `App.xcarchive`, even as a link to a folder named otherwise), else the folder it resolves
    /// to (`.`, `App.app/.`, a link named otherwise), whose name then says what it is.
    public static func bundlePath(_ input: String) -> String {
        let given = input.count > 1 && input.hasSuffix("/") ? String(input.dropLast()) : input
        let name = (given as NSString).lastPathComponent
        let isBundleName = (name.hasSuffix(".app") && name.count > 4) || (name.hasSuffix(".xcarchive") && name.count > 10)
        return isBundleName ? given : canonicalPath(input)
    }

    /// The app inside `input` (an `.app`, or an `.xcarchive`'s `Products/Applications/*.app`) and
    /// the archive's `SwiftSupport` folder when it has one, links and `.` resolved.
    public static func locateApp(_ input: String) throws -> (app: String, swiftSupport: String?) {
        guard FileIO.kind(of: input) == .folder else {
            throw Diagnostic.ipa("no app bundle or archive here", file: input)
        }
        let trimmed = bundlePath(input)
        if trimmed.hasSuffix(".xcarchive") {
            let applications = trimmed + "/Products/Applications"
            let apps = ((try? FileManager.default.contentsOfDirectory(atPath: applications)) ?? []).filter { $0.hasSuffix(".app") }
            guard apps.count == 1 else {
                throw Diagnostic.ipa(
                    apps.isEmpty
                        ? "holds no app in Products/Applications"
                        : "holds \(apps.count) apps in Products/Applications (\(apps.sorted().joined(separator: ", ")))",
                    file: input)
            }
            let swiftSupport = trimmed + "/SwiftSupport"
            return (applications + "/" + apps[0], FileManager.default.fileExists(atPath: swiftSupport) ? swiftSupport : nil)
        }
        guard FileManager.default.fileExists(atPath: trimmed + "/Info.plist") else {
            throw Diagnostic.ipa("is not an app bundle (no Info.plist) or an .xcarchive", file: input)
        }
        let name = (trimmed as NSString).lastPathComponent
        guard name.hasSuffix(".app"), name.count > 4 else {
            throw Diagnostic.ipa(
                "is a folder named '\(name)', not '<Name>.app': an ipa holds Payload/<Name>.app, the only layout iOS installs; "
                    + "rename the folder (Xcode names it after the product)", file: input)
        }
        return (trimmed, nil)
    }

    /// Lists what packaging `input` reads (its app, an archive's SwiftSupport) without reading a file,
    /// and throws what packaging would refuse, naming the file: something that is not a file, folder
    /// or link (a FIFO, whose copy waits forever), a link leading out of the bundle, a name that is
    /// not UTF-8. A command that copies the build first checks it here, so the error names the input.
    public static func checkContents(of input: String) throws {
        let (app, swiftSupport) = try locateApp(input)
        // Names, kinds and links alone: no file's size or permissions are needed.
        let appName = "Payload/" + (app as NSString).lastPathComponent
        try ArchiveEntryNames.check(BundleTree.entries(of: app, prefix: appName, statsFiles: false))
        if let swiftSupport { try ArchiveEntryNames.check(BundleTree.entries(of: swiftSupport, prefix: "SwiftSupport", statsFiles: false)) }
    }

    /// Packages `input` into the ipa at `output`.
    public func package(_ input: String, to output: String) throws -> Report {
        let (app, swiftSupport) = try IPAPackager.locateApp(input)
        try OutputPlacement.checkOutside(output, input: input)
        let appName = (app as NSString).lastPathComponent
        var warnings: [Diagnostic] = []
        var entries = [
            BundleTree.Entry(
                archivePath: "Payload/", sourcePath: app, kind: .directory, size: 0,
                permissions: 0o755, modificationTime: 0)
        ]
        entries += try BundleTree.entries(of: app, prefix: "Payload/" + appName, threads: options.threads, leftIn: options.carried)
        entries[0].modificationTime = entries[1].modificationTime
        if let profile = options.profile {
            var info = stat()
            guard stat(profile, &info) == 0 else { throw Diagnostic.ipa("no such provisioning profile", file: profile) }
            guard info.st_mode & S_IFMT == S_IFREG else { throw Diagnostic.ipa("is a folder, not a provisioning profile", file: profile) }
            // What goes in must be a profile iOS can take: an empty file, an Info.plist or a macOS
            // profile embedded by mistake is only found on the device otherwise.
            let parsed = try ProvisioningProfile(contentsOf: profile, limits: options.profileLimits)
            if !parsed.platforms.isEmpty && parsed.platforms.allSatisfy({ $0 == "OSX" || $0 == "macOS" }) {
                throw Diagnostic.ipa(
                    "is a profile for \(parsed.platforms.joined(separator: ", ")), not iOS; an iOS app needs a .mobileprovision made for iOS",
                    file: profile)
            }
            let name = "Payload/\(appName)/embedded.mobileprovision"
            let replacement = BundleTree.Entry(
                archivePath: name, sourcePath: profile, kind: .file, size: Int64(info.st_size),
                permissions: 0o644, modificationTime: Int64(info.st_mtim.tv_sec))
            if let index = entries.firstIndex(where: { $0.archivePath == name }) {
                entries[index] = replacement
            } else {
                let insertAt =
                    entries.firstIndex {
                        !UTF8Order.precedes($0.archivePath, name) && $0.archivePath.hasPrefix("Payload/\(appName)/")
                    } ?? entries.count
                entries.insert(replacement, at: insertAt)
            }
            if FileManager.default.fileExists(atPath: app + "/_CodeSignature") {
                warnings.append(
                    Diagnostic(
                        .ipa(.signatureInvalidated),
                        "\(appName) is signed; embedding a different profile invalidates the signature, so re-sign it before installing",
                        severity: .warning))
            }
        }
        if let swiftSupport {
            entries += try BundleTree.entries(of: swiftSupport, prefix: "SwiftSupport", threads: options.threads, leftIn: options.carried)
        }
        for item in options.extraItems {
            let name = (item as NSString).lastPathComponent
            guard name != "Payload", !(name == "SwiftSupport" && swiftSupport != nil) else {
                throw Diagnostic.ipa("would be put at the top of the ipa beside one of its own '\(name)'", file: item)
            }
            var info = stat()
            guard lstat(item, &info) == 0 else { throw Diagnostic.ipa("cannot be read: \(SystemError.describe(errno))", file: item) }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: entries += try BundleTree.entries(of: item, prefix: name, threads: options.threads, leftIn: options.carried)
            case S_IFREG:
                entries.append(
                    BundleTree.Entry(
                        archivePath: name, sourcePath: item, kind: .file, size: Int64(info.st_size),
                        permissions: UInt32(info.st_mode) & 0o7777, modificationTime: Int64(info.st_mtim.tv_sec)))
            default: throw Diagnostic.ipa("is neither a file nor a folder", file: item)
            }
        }
        try ArchiveEntryNames.check(entries)
        if let carried = options.carried { entries = IPAPackager.ordered(entries, like: carried.entryOrder) }
        if options.reproducible { normalise(&entries) }

        // A file is written beside its target (links followed) and renamed over it; standard
        // output ('-'), a device or a pipe gets the ipa copied in once it is complete and checked.
        let destination = output == "-" ? .stream : try WriteDestination.of(output)
        let temporary: String
        switch destination {
        case .file(let target):
            let (folder, name) = FileIO.split(target)
            guard FileIO.kind(of: folder) == .folder else {
                throw Diagnostic.ipa("cannot be written: its folder does not exist", file: output)
            }
            FileIO.removeStaleTemporaries(in: folder)
            temporary = FileIO.temporaryPath(for: folder + "/" + name)
        case .stream, .descriptor:
            FileIO.removeStaleTemporaries(in: FileIO.temporaryFolder)
            temporary = FileIO.temporaryPath(for: FileIO.temporaryFolder + "/" + appName.replacingOccurrences(of: ".app", with: ".ipa"))
        }
        // Made here, under the lock an interrupt takes before removing this process's work files.
        let made = WorkFiles.creating { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666) }
        guard made >= 0 else { throw Diagnostic.system("cannot be written", file: output) }
        close(made)
        defer { unlink(temporary) }
        let (totals, layouts) = try write(entries, to: temporary)
        if totals.uncompressed > 0xFFFF_FFFF || entries.count > 0xFFFF {
            warnings.append(
                Diagnostic.ipa("the ipa needs ZIP64 (over 4 GB or 65,535 entries); over-the-air installs of such ipas are known to fail")
                    .asWarning)
        }
        try options.afterWriting?(temporary)
        if options.verify {
            try ZipArchiveVerifier.verify(temporary, layouts: layouts, threads: options.threads, displayName: output)
        }
        switch destination {
        case .file(let target):
            guard Interruption.pointOfNoReturn(writing: target, { rename(temporary, target) }) == 0 else {
                throw Diagnostic.system("cannot be written", file: output)
            }
        case .stream, .descriptor:
            try FileIO.copyContents(of: temporary, to: output)
        }
        var report = Report(
            output: output, entries: entries.count, uncompressedBytes: totals.uncompressed,
            compressedBytes: totals.compressed, warnings: warnings)
        report.wentToStandardOutput = output == "-" || destination == .descriptor(STDOUT_FILENO)
        return report
    }

    /// `entries` with those named in `order` in its order, each other one after the entry that
    /// comes before it in `entries` (so a file added to a folder follows its neighbours).
    static func ordered(_ entries: [BundleTree.Entry], like order: [String]) -> [BundleTree.Entry] {
        let rank = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var keys: [(rank: Int, position: Int)] = []
        var previous = -1
        for (position, entry) in entries.enumerated() {
            if let known = rank[entry.archivePath] { previous = known }
            keys.append((previous, position))
        }
        return entries.indices.sorted { keys[$0] < keys[$1] }.map { entries[$0] }
    }

    /// Fixed times and modes: files 0644 (0755 when any execute bit is set), folders 0755.
    private func normalise(_ entries: inout [BundleTree.Entry]) {
        let time = options.sourceDateEpoch ?? 315_532_800
        for index in entries.indices {
            entries[index].modificationTime = time
            switch entries[index].kind {
            case .directory: entries[index].permissions = 0o755
            case .file: entries[index].permissions = entries[index].permissions & 0o111 != 0 ? 0o755 : 0o644
            case .symlink: entries[index].permissions = 0o777
            }
        }
    }

    /// Who frames the archive.
    enum ArchiveFraming {
        /// ``DirectArchiveWriter``: stored files copied once, reading and writing overlapped, and
        /// deflated data copied from the spool (smaller buffers only in tests).
        case direct(bufferSize: Int = DirectArchiveWriter.defaultBufferSize)
        /// libzip (used where ZIP64 is needed, and by tests comparing the two).
        case libzip
    }

    /// Writes the archive and returns its totals and, for verification, how each chunked entry was laid out.
    func write(_ entries: [BundleTree.Entry], to path: String, writer framing: ArchiveFraming = .direct())
        throws -> ((uncompressed: Int64, compressed: Int64), [String: ZipArchiveVerifier.Layout])
    {
        let files = entries.indices.filter { if case .file = entries[$0].kind { return true } else { return false } }
        let total = files.reduce(Int64(0)) { $0 + entries[$1].size }
        if options.level == 0, let carried = options.carried, carried.leftAny {
            throw Diagnostic.ipa(
                "cannot be stored uncompressed: files of it were left compressed in the archive", file: carried.archivePath)
        }
        if options.level == 0, case .direct(let bufferSize) = framing, DirectArchiveWriter.fits(entries) {
            try writeStored(entries, files: files, to: path, total: total, bufferSize: bufferSize)
            return ((total, total), [:])
        }
        var prepared: [Int: PreparedEntry] = [:]
        var spool: Spool? = nil
        if options.level > 0 {
            let newSpool = try options.ahead?.spool ?? Spool(in: (path as NSString).deletingLastPathComponent)
            spool = newSpool
            if let ahead = options.ahead {
                for index in files {
                    prepared[index] = ahead.prepared(for: entries[index].sourcePath, current: entries[index].identity)
                }
            }
            if let carried = options.carried {
                for index in files where prepared[index] == nil {
                    prepared[index] = carried.prepared(for: entries[index].sourcePath, listedAsLeft: entries[index].isLeftInArchive)
                }
                try carried.checkLeftFilesCarried(files.filter { prepared[$0] == nil }.map { entries[$0].sourcePath })
                for index in files where prepared[index] == nil {
                    prepared[index] = try spliced(entries[index], from: carried, spool: newSpool)
                }
            }
            let fresh = files.filter { prepared[$0] == nil }
            let freshTotal = fresh.reduce(Int64(0)) { $0 + entries[$1].size }
            prepared.merge(try compress(fresh.map { entries[$0] }, indices: fresh, total: freshTotal, spool: newSpool)) { old, _ in old }
        }
        let writer: ArchiveWriting
        if spool != nil, case .direct(let bufferSize) = framing, DirectArchiveWriter.fits(entries, prepared: prepared) {
            let direct = try DirectArchiveWriter(creating: path, bufferSize: bufferSize)
            direct.reserve(DirectArchiveWriter.archiveSize(entries, prepared: prepared))
            writer = direct
        } else {
            writer = try ZipArchiveWriter(creating: path)
        }
        var compressed: Int64 = 0
        var layouts: [String: ZipArchiveVerifier.Layout] = [:]
        try writer.add(entries) { index, entry, time in
            if let ready = prepared[index], let spool {
                compressed += ready.compressedSize
                if ready.isDeflated, let kept = ready.kept {
                    layouts[entry.archivePath] = ZipArchiveVerifier.Layout(
                        segmentLengths: ready.segments.map(\.length), uncompressedSize: ready.uncompressedSize,
                        chunkSize: IPAPackager.chunkSize, segmentSizes: ready.segmentSizes, kept: kept)
                } else if ready.isDeflated, let storedCRC = ready.storedCRC {
                    layouts[entry.archivePath] = ZipArchiveVerifier.Layout(
                        segmentLengths: ready.segments.map(\.length), uncompressedSize: ready.uncompressedSize,
                        chunkSize: IPAPackager.chunkSize, storedCRC: storedCRC)
                } else if ready.isDeflated && ready.segments.count > 1 {
                    layouts[entry.archivePath] = ZipArchiveVerifier.Layout(
                        segmentLengths: ready.segments.map(\.length),
                        uncompressedSize: ready.uncompressedSize,
                        chunkSize: IPAPackager.chunkSize)
                }
                var bytes: any PreparedBytes = spool
                if ready.isCarried, let carried = options.carried { bytes = carried }
                try writer.addPrepared(entry.archivePath, entry: ready, spool: bytes, permissions: entry.permissions, dosTime: time)
            } else {
                compressed += entry.size
                try writer.addStoredFile(
                    entry.archivePath, from: entry.sourcePath, size: entry.size, permissions: entry.permissions, dosTime: time)
            }
        }
        if options.level == 0 { options.progress?(total, total) }  // libzip read the files while closing
        return ((total, compressed), layouts)
    }

    /// Stores `entries` with ``DirectArchiveWriter``; `files` are the indices of the regular files among them.
    private func writeStored(_ entries: [BundleTree.Entry], files: [Int], to path: String, total: Int64, bufferSize: Int) throws {
        let writer = try DirectArchiveWriter(creating: path, bufferSize: bufferSize)
        writer.reserve(DirectArchiveWriter.archiveSize(entries))
        if let progress = options.progress { writer.progress = { progress($0, total) } }
        let readAhead = ReadAhead(paths: files.map { entries[$0].sourcePath }, sizes: files.map { entries[$0].size })
        defer { readAhead.stop() }
        var position = 0
        try writer.add(entries) { _, entry, time in
            let opened = readAhead.descriptor(for: position)
            position += 1
            try writer.addStoredFile(
                entry.archivePath, from: entry.sourcePath, opened: opened, size: entry.size,
                permissions: entry.permissions, dosTime: time)
        }
    }

    /// Files of one chunk go to the workers in batches of about this many bytes (or
    /// ``smallFileBatchCount`` files), so that an app of thousands of small files does not pay a
    /// job hand-over, and a worker's wake-up, for each.
    static let smallFileBatchBytes = 256 << 10
    static let smallFileBatchCount = 64

    /// Compresses every file on `threads` workers, reading in order on this thread (which also
    /// computes each file's CRC), with a bounded number of chunks in flight.
    func compress(_ files: [BundleTree.Entry], indices: [Int], total: Int64, spool: Spool) throws -> [Int: PreparedEntry] {
        let workers = WorkerPool(label: "adhocbuild.deflate", capacity: max(1, options.threads) * 3)
        let state = CompressionState(count: files.count, level: options.level)
        var done: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: IPAPackager.chunkSize)
        var batch = WorkerBatch<CompressionState.Chunk>(
            maxCount: IPAPackager.smallFileBatchCount, maxBytes: IPAPackager.smallFileBatchBytes
        ) { try state.compress($0, spool: spool) }
        for (position, file) in files.enumerated() {
            if workers.hasFailed { break }
            let path = file.sourcePath
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw Diagnostic.system("cannot be read", file: path) }
            defer { close(fd) }
            let chunkCount = max(1, Int((file.size + Int64(IPAPackager.chunkSize) - 1) / Int64(IPAPackager.chunkSize)))
            state.begin(position, chunks: chunkCount, size: file.size)
            var crc: UInt32 = 0
            for index in 0..<chunkCount {
                let wanted = Int(min(Int64(IPAPackager.chunkSize), file.size - Int64(index) * Int64(IPAPackager.chunkSize)))
                var got = 0
                while got < wanted {
                    let result = buffer.withUnsafeMutableBytes { bytes in
                        retryingInterrupted { read(fd, bytes.baseAddress! + got, wanted - got) }
                    }
                    guard result > 0 else {
                        if result < 0 { throw Diagnostic.system("cannot be read", file: path) }
                        throw Diagnostic.ipa("changed while it was being read (shorter than \(file.size) bytes)", file: path)
                    }
                    got += result
                }
                let data = Array(buffer[0..<wanted])
                crc = data.withUnsafeBytes { Deflater.crc32(crc, $0) }
                let chunk = CompressionState.Chunk(
                    data: data, file: position, path: path, index: index, isLast: index == chunkCount - 1,
                    single: chunkCount == 1)
                if chunkCount == 1 {
                    batch.add(chunk, bytes: wanted, to: workers)
                } else {
                    batch.submit(to: workers)  // files keep their order in the spool as far as they can
                    workers.submit { try state.compress(chunk, spool: spool) }
                }
                done += Int64(wanted)
                options.progress?(done, total)
            }
            state.finish(position, crc: crc)
        }
        batch.submit(to: workers)
        try workers.wait()
        var result: [Int: PreparedEntry] = [:]
        for (position, index) in indices.enumerated() { result[index] = state.entries[position] }
        return result
    }
}

/// What the compression workers share: each file's prepared entry and a pool of deflaters.
// @unchecked Sendable: `entries` and `pool` are only touched while holding `lock`; a deflater taken
// from the pool is used by one worker at a time.
private final class CompressionState: @unchecked Sendable {
    private let lock = Locked()
    private(set) var entries: [PreparedEntry]
    /// Idle compressors; a worker takes one or makes one (GCD may run more workers than cores).
    private var pool: [ChunkDeflater] = []
    private let level: Int

    init(count: Int, level: Int) {
        entries = Array(repeating: PreparedEntry(), count: count)
        self.level = level
    }

    func begin(_ file: Int, chunks: Int, size: Int64) {
        lock.withLock {
            entries[file].segments = Array(repeating: (0, 0), count: chunks)
            entries[file].uncompressedSize = size
        }
    }

    func finish(_ file: Int, crc: UInt32) {
        lock.withLock { entries[file].crc = crc }
    }

    /// A piece of a file read for compressing: chunk `index` of file `file` (read from `path`).
    struct Chunk: Sendable {
        var data: [UInt8]
        var file: Int
        var path: String
        var index: Int
        var isLast: Bool
        /// Whether it is the file's only chunk.
        var single: Bool
    }

    /// Compresses `chunk` into the spool; a file in one chunk is stored instead when deflating
    /// does not make it smaller.
    func compress(_ chunk: Chunk, spool: Spool) throws {
        let (data, file, path, isLast, single) = (chunk.data, chunk.file, chunk.path, chunk.isLast, chunk.single)
        let deflater = lock.withLock { pool.popLast() } ?? ChunkDeflater(level: level)
        defer { lock.withLock { pool.append(deflater) } }
        let compressed = data.isEmpty ? nil : data.withUnsafeBytes { deflater.deflate($0) }
        var output = compressed ?? data
        var deflated = true
        if single && (compressed == nil || output.count >= data.count) {
            output = data  // not worth deflating: store it
            deflated = false
        } else if compressed == nil {
            throw Diagnostic.ipa(
                "could not be compressed (the compressor failed on bytes from \(chunk.index * IPAPackager.chunkSize))", file: path)
        } else if !isLast {
            output = try DeflateChunk.makeContinuable(output)
        }
        let offset = try output.withUnsafeBytes { try spool.append($0) }
        lock.withLock {
            entries[file].segments[chunk.index] = (offset, output.count)
            if !deflated { entries[file].isDeflated = false }
        }
    }
}

import CLinux
import Foundation

/// File reading and crash-safe writing shared by every command that touches files.
///
/// `-` means standard input or output. Writes go to a temporary file in the same folder
/// that is flushed and renamed over the target, so a failure or a kill at any moment leaves
/// either the old file or the complete new one, never a partial one. An existing file's
/// permission bits are kept.
public enum FileIO {
    /// What a path names, symbolic links followed.
    public enum Kind: Sendable {
        case folder
        /// Anything that is not a folder.
        case file
    }

    /// What is at `path` (links followed), or nil when nothing is.
    public static func kind(of path: String) -> Kind? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return nil }
        return isFolder.boolValue ? .folder : .file
    }

    /// The most bytes of one file read into memory when its reader names no limit of its own.
    public static let defaultReadLimit = 1 << 30

    /// The bytes of the file at `path` (`-`: standard input), refused with one line once they pass
    /// `limit`: a regular file by its size before anything is read, anything else (a pipe, a device
    /// such as `/dev/zero`, standard input) while it is read, so an endless input ends at the limit.
    public static func read(_ path: String, limit: Int = defaultReadLimit) throws -> Data {
        let name = path == "-" ? "standard input" : path
        if path == "-" { return try readAll(STDIN_FILENO, sizeHint: 0, limit: limit, name: name) }
        guard let kind = kind(of: path) else { throw Diagnostic.io("no such file", file: path) }
        if kind == .folder { throw Diagnostic.io("is a folder, not a file", file: path) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw Diagnostic.io(
                errno == EACCES ? "cannot be read (permission denied)" : "cannot be read: \(SystemError.describe(errno))", file: path)
        }
        defer { close(fd) }
        var info = stat()
        let isRegular = fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        if isRegular, info.st_size > limit { throw tooLarge(name, limit: limit, size: Int(info.st_size)) }
        return try readAll(fd, sizeHint: isRegular ? Int(info.st_size) : 0, limit: limit, name: name)
    }

    /// The one-line error for an input over its limit.
    static func tooLarge(_ name: String, limit: Int, size: Int?) -> Diagnostic {
        guard let size else {
            return Diagnostic(.file(.limitExceeded), "goes on past \(limit) bytes, the most adhocbuild reads of it", file: name)
        }
        return Diagnostic(.file(.limitExceeded), "is \(size) bytes, more than the \(limit) bytes adhocbuild reads of it", file: name)
    }

    /// The alignment of buffers that `read(2)` fills: a page. The kernel copies file data from
    /// page-aligned page-cache pages, and a destination 16 bytes past a page start (where
    /// `malloc` puts a large block) makes that copy run at less than half its speed on this
    /// project's machines (4K aliasing between the copy's loads and stores), which was a third
    /// of `codesign verify`'s time outside hashing.
    public static let readBufferAlignment = 4096

    /// Everything `fd` gives until its end, in one page-aligned buffer: a regular file in as few
    /// `read` calls as the kernel allows (one byte more than its size is asked for, so that the
    /// end shows at once; a file that grew meanwhile is read on into a larger buffer). More than
    /// `limit` bytes is an error naming `name`.
    static func readAll(_ fd: Int32, sizeHint: Int, limit: Int, name: String) throws -> Data {
        var capacity = max(1, min(sizeHint, limit)) + 1
        if sizeHint == 0 { capacity = min(64 << 10, limit + 1) }
        var buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: readBufferAlignment)
        var count = 0
        while true {
            if count == capacity {
                guard count <= limit else {
                    buffer.deallocate()
                    throw tooLarge(name, limit: limit, size: nil)
                }
                let larger = min(capacity * 2, limit + 1)
                let grown = UnsafeMutableRawPointer.allocate(byteCount: larger, alignment: readBufferAlignment)
                grown.copyMemory(from: buffer, byteCount: count)
                buffer.deallocate()
                buffer = grown
                capacity = larger
            }
            let got = retryingInterrupted { Foundation.read(fd, buffer + count, capacity - count) }
            if got < 0 {
                let code = errno
                buffer.deallocate()
                throw Diagnostic.io("cannot be read: \(SystemError.describe(code))", file: name)
            }
            if got == 0 { break }
            count += got
        }
        guard count <= limit else {
            buffer.deallocate()
            throw tooLarge(name, limit: limit, size: nil)
        }
        return Data(bytesNoCopy: buffer, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
    }

    /// Reads the open regular file `fd` to its end through `buffer`, handing each piece to `body`;
    /// returns 0, or the `errno` of a read that failed. A read shorter than the buffer is the file's
    /// end on Linux, so a file smaller than the buffer takes one call, with no second one to see the
    /// end (most of an app's thousands of files).
    public static func readToEnd(
        _ fd: Int32, through buffer: UnsafeMutableRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) rethrows -> Int32 {
        while true {
            let count = retryingInterrupted { Foundation.read(fd, buffer.baseAddress, buffer.count) }
            if count < 0 { return errno }
            if count == 0 { return 0 }
            try body(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
            if count < buffer.count { return 0 }
        }
    }

    /// The prefix of temporary files, so a later run can recognise and remove leftovers.
    public static let temporaryPrefix = ".adhocbuild-tmp-"

    /// A temporary name beside `target`: `.adhocbuild-tmp-<name>-<pid>.<start>-<random>`, so a later run can
    /// tell whose it is (the process id and its start time, which tells a reused id apart) and remove it
    /// once that process is gone.
    public static func temporaryPath(for target: String) -> String {
        let (folder, name) = split(target)
        return temporaryPath(in: folder, name: name)
    }

    /// A temporary name for `name` in `folder`, a folder as `split(_:)` gives it.
    static func temporaryPath(in folder: String, name: String) -> String {
        WorkFiles.register(folder: folder)
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        return folder + "/" + temporaryPrefix + shortened(name) + "-" + ownerTag + "-" + random
    }

    /// Longest part of the target's name a temporary name carries: with the prefix, the owner tag
    /// and the random tail it stays under the 255 bytes a name may have, so a file of a long
    /// (valid) name can still be written.
    static let temporaryNameLimit = 160

    /// `name`, cut at a character boundary to at most ``temporaryNameLimit`` UTF-8 bytes.
    static func shortened(_ name: String) -> String {
        guard name.utf8.count > temporaryNameLimit else { return name }
        var result = ""
        var bytes = 0
        for character in name {
            bytes += character.utf8.count
            if bytes > temporaryNameLimit { break }
            result.append(character)
        }
        return result
    }

    /// `path` made absolute against the working folder with `.`, `..`, repeated and trailing slashes
    /// resolved by name, as `URL(fileURLWithPath:).standardizedFileURL.path` gives it, without URL;
    /// but a leading `~` is a name like any other (URL puts the home folder there, as no file call does).
    public static func standardized(_ path: String) -> String {
        let (folder, name) = split(path)
        if name == "/" { return "/" }
        return folder == "/" ? "/" + name : folder + "/" + name
    }

    /// `path` made absolute against the working folder and cut into its folder and last name, as
    /// `URL(fileURLWithPath:)` cuts it (`.` and `..` resolved by name, repeated and trailing slashes
    /// dropped), without Foundation's URL machinery, whose first use costs a few hundred
    /// microseconds at start-up.
    public static func split(_ path: String) -> (folder: String, name: String) {
        var absolute = path
        if !absolute.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            absolute = (getcwd(&buffer, buffer.count).map { String(cString: $0) } ?? "") + "/" + absolute
        }
        var components: [Substring] = []
        for component in absolute.split(separator: "/") {
            if component == "." { continue }
            if component == ".." {
                if !components.isEmpty { components.removeLast() }
                continue
            }
            components.append(component)
        }
        guard let name = components.popLast() else { return ("/", "/") }
        return ("/" + components.joined(separator: "/"), String(name))
    }

    /// This process's id and start time, as temporary names carry them.
    static let ownerTag: String = {
        let pid = getpid()
        return ProcessStatus(pid: pid).map { "\(pid).\($0.startTime)" } ?? String(pid)
    }()

    /// Removes temporary files and folders in `folder` left by adhocbuild processes that no longer
    /// run (killed mid-write, say). Those of running processes are left alone.
    public static func removeStaleTemporaries(in folder: String) {
        let folder = folder.isEmpty ? "." : folder
        for name in temporaryNames(in: folder) {
            guard let (pid, startTime) = owner(of: name), pid > 0, pid != getpid() else { continue }
            if !isRunning(pid: pid, startTime: startTime) {
                try? FileManager.default.removeItem(atPath: folder + "/" + name)
            }
        }
    }

    /// The process id and (when the name carries it) start time a temporary name was made by.
    static func owner(of name: String) -> (pid: Int32, startTime: UInt64?)? {
        let parts = name.split(separator: "-")
        guard parts.count >= 2 else { return nil }
        let owner = parts[parts.count - 2].split(separator: ".")
        guard let first = owner.first, let pid = Int32(first) else { return nil }
        return (pid, owner.count > 1 ? UInt64(owner[1]) : nil)
    }

    /// Whether a folder on the way to `path` is a temporary one of this process (a work folder,
    /// removed before it exits).
    static func isInsideOwnWorkFolder(_ path: String) -> Bool {
        path.split(separator: "/").dropLast().contains { $0.hasPrefix(temporaryPrefix) && isOwnTemporary(String($0)) }
    }

    /// Whether nothing (no file, folder or link) is at `path`: `lstat` fails with `ENOENT`. Any
    /// other failure (a folder that cannot be searched) does not say the path is free.
    public static func isAbsent(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) != 0 && errno == ENOENT
    }

    /// Whether the temporary name `name` is this process's: its id, and its start time when the name carries one.
    static func isOwnTemporary(_ name: String) -> Bool {
        guard let (pid, startTime) = owner(of: name), pid == getpid() else { return false }
        return startTime == nil || ownerTag == "\(pid).\(startTime!)"
    }

    /// The names in `folder` that start with ``temporaryPrefix``. Read with `readdir`, comparing
    /// bytes, so that a folder of thousands of other files (a shared `/tmp`, a CI agent's artifact
    /// folder) costs no string for each: listing it through `FileManager` took 10 ms of CPU per run
    /// in a folder of 13,000 files.
    static func temporaryNames(in folder: String) -> [String] {
        guard let listing = opendir(folder) else { return [] }
        defer { closedir(listing) }
        let prefix = Array(temporaryPrefix.utf8)
        var names: [String] = []
        while let record = readdir(listing) {
            withUnsafeBytes(of: record.pointee.d_name) { name in
                guard name.count >= prefix.count, memcmp(name.baseAddress!, prefix, prefix.count) == 0 else { return }
                names.append(String(cString: name.bindMemory(to: CChar.self).baseAddress!))
            }
        }
        return names
    }

    /// Whether the process that wrote a temporary file still runs: the id exists, is not a zombie,
    /// and (when known) started when the writer did, so a reused id does not keep a leftover alive.
    static func isRunning(pid: Int32, startTime: UInt64?) -> Bool {
        if let status = ProcessStatus(pid: pid) {
            if status.isZombie { return false }
            if let startTime, status.startTime != startTime { return false }
            return true
        }
        if FileManager.default.fileExists(atPath: "/proc/self/stat") { return false }
        return !(kill(pid, 0) == -1 && errno == ESRCH)
    }

    /// Writes all of `raw` to `fd`, retrying short writes and interruptions.
    public static func writeAll(_ fd: Int32, _ raw: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < raw.count {
            let written = retryingInterrupted { Foundation.write(fd, raw.baseAddress! + offset, raw.count - offset) }
            if written < 0 { throw Diagnostic.system("cannot be written", code: errno) }
            offset += written
        }
    }

    /// Asks the kernel to start writing `fd`'s dirty pages from `offset` on to disk, without
    /// waiting; a writer that produces a large file in chunks calls it after each chunk, so the
    /// disk works while it computes the next and `AtomicFileWriter.commit()`'s fsync has little
    /// left to wait for. A hint only: failures (a pipe, a file system without it) are ignored.
    public static func startWriteback(_ fd: Int32, from offset: Int) {
        _ = adhocbuild_start_writeback(fd, offset)
    }

    /// Makes `path` and any missing folders above it (nothing to do when it is a folder already),
    /// failing with one line that names the path: `is a file, not a folder` when a file is in the
    /// way (at `path` or above it), else the system's reason.
    public static func createFolder(_ path: String) throws {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        var prefix = path.hasPrefix("/") ? "" : "."
        for (index, component) in components.enumerated() {
            prefix += "/" + component
            /// What is in the way, as the user wrote it.
            var blocker: String { prefix.hasPrefix("./") ? String(prefix.dropFirst(2)) : prefix }
            var info = stat()
            if stat(prefix, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    if index == components.count - 1 { throw Diagnostic.io("is a file, not a folder", file: path) }
                    throw Diagnostic.io("cannot be made: \(blocker) is a file, not a folder", file: path)
                }
                continue
            }
            if WorkFiles.creating({ mkdir(prefix, 0o777) }) != 0 {
                let code = errno
                // EEXIST with nothing stat can follow: a link to nothing (an unmounted share) is in the way.
                guard code == EEXIST, stat(prefix, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                    if code == EEXIST { throw Diagnostic.io("cannot be made: \(blocker) is a symbolic link to nothing", file: path) }
                    throw Diagnostic.system("cannot be made", file: path, code: code)
                }
            }
        }
    }

    /// The nearest of the folders above `path` that exists (absolute), and the names of the
    /// missing folders below it down to `path`'s own folder, outermost first.
    public static func missingFolders(above path: String) -> (existing: String, missing: [String]) {
        var (folder, _) = split(path)
        var missing: [String] = []
        while kind(of: folder) == nil, folder != "/" {
            let (up, name) = split(folder)
            missing.insert(name, at: 0)
            folder = up
        }
        return (folder, missing)
    }

    /// What the symbolic link at `path` points to, as written in it; nil when `path` is no link
    /// (or cannot be read).
    public static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length >= 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` as the kernel finds it, every link and `.` and `..` followed (`realpath(3)`); nil
    /// when something on the way does not exist.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The folder for temporary files with no target folder of their own: `$TMPDIR`, or `/tmp`.
    public static var temporaryFolder: String {
        guard let folder = ProcessInfo.processInfo.environment["TMPDIR"], !folder.isEmpty else { return "/tmp" }
        return folder.count > 1 && folder.hasSuffix("/") ? String(folder.dropLast()) : folder
    }

    /// Copies the file at `source` into `target`, a stream (`-` is standard output; a device or
    /// pipe is opened for writing), for output that cannot be renamed into place.
    public static func copyContents(of source: String, to target: String) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw Diagnostic.system("cannot be read", file: source, code: errno) }
        defer { close(input) }
        let output = target == "-" ? STDOUT_FILENO : try WriteDestination.openForWriting(target)
        defer { if output != STDOUT_FILENO { close(output) } }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: readBufferAlignment)
        defer { buffer.deallocate() }
        while true {
            let got = retryingInterrupted { Foundation.read(input, buffer.baseAddress!, buffer.count) }
            if got < 0 { throw Diagnostic.system("cannot be read", file: source, code: errno) }
            if got == 0 { return }
            try inFile(target == "-" ? "standard output" : target, only: FileProblem.self) {
                try writeAll(output, UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            }
        }
    }

    /// Writes several files as one step: each under a temporary name first, then all renamed into
    /// place, so a failure while any is written leaves every target as it was. Errors name the file.
    /// `beforeRenaming` runs once every file is written and before the first is renamed: a change of
    /// the caller's own that must come after every target is known to be writable (a failure there
    /// leaves the targets as they were too).
    public static func writeAtomically(
        together files: [(path: String, data: Data)], beforeRenaming: () throws -> Void = {}
    ) throws {
        var writers: [AtomicFileWriter] = []
        do {
            for (path, data) in files {
                let writer = try AtomicFileWriter(path: path)
                writers.append(writer)
                try inFile(path, only: FileProblem.self) { try data.withUnsafeBytes { try writeAll(writer.fileDescriptor, $0) } }
            }
            try beforeRenaming()
            if let first = files.first { Interruption.pause(at: "commit:" + split(first.path).name) }
            try Interruption.pointOfNoReturn { for writer in writers { try writer.commit() } }
        } catch {
            for writer in writers { writer.abort() }
            throw error
        }
    }

    /// Writes `data` to `path` atomically (`-` is standard output).
    public static func writeAtomically(_ data: Data, to path: String) throws {
        try data.withUnsafeBytes { try writeAtomically($0, to: path) }
    }

    /// Writes `bytes` to `path` atomically (`-` is standard output).
    public static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        try bytes.withUnsafeBytes { try writeAtomically($0, to: path) }
    }

    static func writeAtomically(_ raw: UnsafeRawBufferPointer, to path: String) throws {
        if path == "-" {
            try inFile("standard output", only: FileProblem.self) { try writeAll(STDOUT_FILENO, raw) }
            return
        }
        let file = try AtomicFileWriter(path: path)
        do {
            try writeAll(file.fileDescriptor, raw)
            try file.commit()
        } catch let error as Diagnostic where error.is(FileProblem.self) {
            file.abort()
            throw error.inFile(path)
        }
    }
}

/// A file written under a temporary name in the target's folder and renamed over the target
/// on `commit()`, so readers only ever see the old file or the complete new one.
///
/// The target is what the path names with symbolic links followed (``WriteDestination``): a link
/// stays a link and the file it points to gets the new bytes, and a device, FIFO or `/dev/stdout`
/// is written straight into (`/dev/null` stays a device).
///
/// When the rename replaces an existing file, the new data is flushed to disk first, so a crash
/// cannot swap a good file for an empty one. A new file is not flushed: there is nothing to lose,
/// and a flush of a large file (a signed executable in a fresh copy of an app) waits for the disk.
public final class AtomicFileWriter {
    public let path: String
    public let fileDescriptor: Int32
    /// The temporary file renamed over `target`; nil when writing straight into a stream.
    private let temporaryPath: String?
    /// The regular file `path` names, links followed.
    private let target: String
    private let mode: mode_t
    /// True when `path` existed when the writer was made, so `commit()` flushes before renaming.
    private let replacesExistingFile: Bool
    /// Whether `commit()` will flush the data to disk (it replaces an existing file). Only then is
    /// it worth starting the disk writes early (`FileIO.startWriteback`); for a new file that is
    /// work done while the caller waits, for a flush that never comes.
    public var flushesOnCommit: Bool { replacesExistingFile }
    private var finished = false

    /// `mode`: the new file's permissions; by default the target's own, or 0666 less the umask for a new one.
    /// `temporaryFolder`: where the temporary file is made instead of the target's folder (one on the
    /// same file system, for a target whose folder is not there yet).
    public init(path: String, mode requested: mode_t? = nil, temporaryFolder: String? = nil) throws {
        self.path = path
        guard case .file(let target) = try WriteDestination.of(path) else {
            fileDescriptor = try WriteDestination.openForWriting(path)
            target = path
            temporaryPath = nil
            mode = 0
            replacesExistingFile = false
            return
        }
        self.target = target
        let (folder, name) = FileIO.split(target)
        if let temporaryFolder {
            FileIO.removeStaleTemporaries(in: temporaryFolder)
            temporaryPath = FileIO.temporaryPath(for: temporaryFolder + "/" + name)
        } else {
            FileIO.removeStaleTemporaries(in: folder)
            temporaryPath = FileIO.temporaryPath(in: folder, name: name)
        }
        var info = stat()
        replacesExistingFile = stat(target, &info) == 0
        if replacesExistingFile {
            mode = requested ?? info.st_mode & 0o7777
        } else if let requested {
            mode = requested
        } else {
            let mask = umask(0)
            umask(mask)
            mode = 0o666 & ~mask
        }
        let temporary = temporaryPath!
        let fd = WorkFiles.creating { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw Diagnostic.system("cannot be written", file: path, code: errno) }
        fileDescriptor = fd
    }

    /// Sets the mode, flushes the data to disk when an existing file is replaced (unless it is inside
    /// a work folder of this process, which is removed before it exits: nothing there outlives a
    /// crash to need its bytes), and renames the temporary file over the target.
    public func commit() throws {
        guard !finished else { return }
        finished = true
        guard let temporaryPath else {
            if close(fileDescriptor) != 0 && errno != EINTR { throw Diagnostic.system("cannot be written", file: path, code: errno) }
            return
        }
        var failure: Int32? = nil
        let durable = replacesExistingFile && !FileIO.isInsideOwnWorkFolder(target)
        if fchmod(fileDescriptor, mode) != 0 || (durable && fsync(fileDescriptor) != 0) { failure = errno }
        close(fileDescriptor)
        if failure == nil && Interruption.pointOfNoReturn(writing: path, { rename(temporaryPath, target) }) != 0 { failure = errno }
        if let failure {
            unlink(temporaryPath)
            throw Diagnostic.system("cannot be written", file: path, code: failure)
        }
    }

    /// Removes the temporary file, leaving the target as it was.
    public func abort() {
        guard !finished else { return }
        finished = true
        close(fileDescriptor)
        if let temporaryPath { unlink(temporaryPath) }
    }

    deinit { abort() }
}

/// What `/proc/<pid>/stat` says about a process (Linux).
struct ProcessStatus {
    var isZombie: Bool
    /// Clock ticks after boot when the process started.
    var startTime: UInt64

    init?(pid: Int32) {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
            let text = String(data: data, encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After the parenthesised command name: state is field 3, start time field 22.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let start = UInt64(fields[19]) else { return nil }
        isZombie = fields[0] == "Z" || fields[0] == "X"
        startTime = start
    }
}

import Foundation

/// File reading and crash-safe writing shared by every command that touches files.
///
/// `-` means standard input or output. Writes go to a temporary file in the same folder
/// that is flushed and renamed over the target, so a failure or a kill at any moment leaves
/// either the old file or the complete new one, never a partial one. An existing file's
/// permission bits are kept.
public enum FileIO {
    public static func read(_ path: String) throws -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw PlistError(.io, "no such file", file: path)
        }
        if isDirectory.boolValue { throw PlistError(.io, "is a folder, not a file", file: path) }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw PlistError(.io, "cannot be read (permission denied)", file: path)
        }
        defer { try? handle.close() }
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            throw PlistError(.io, "cannot be read: \(error.localizedDescription)", file: path)
        }
    }

    /// The prefix of temporary files, so a later run can recognise and remove leftovers.
    public static let temporaryPrefix = ".adhocbuild-tmp-"

    /// Writes all of `bytes` to `fd`, retrying short writes and interruptions.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw PlistError(.io, "cannot be written: \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }
    }

    public static func writeAtomically(_ data: Data, to path: String) throws {
        if path == "-" {
            FileHandle.standardOutput.write(data)
            return
        }
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let temporary = folder + "/" + temporaryPrefix + url.lastPathComponent + "-" + String(getpid()) + "-"
            + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        var existingMode: mode_t? = nil
        var info = stat()
        if stat(path, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFDIR { throw PlistError(.io, "is a folder, not a file", file: path) }
            existingMode = info.st_mode & 0o7777
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, existingMode ?? 0o644)
        guard fd >= 0 else {
            throw PlistError(.io, "cannot be written: \(String(cString: strerror(errno)))", file: path)
        }
        var failure: String? = nil
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        if failure == nil, let mode = existingMode { fchmod(fd, mode) }
        if failure == nil && fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        close(fd)
        if failure == nil && rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw PlistError(.io, "cannot be written: \(failure)", file: path)
        }
    }
}

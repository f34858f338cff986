import Foundation

extension FileIO {
    /// The names in the folder `folder` (not `.` and `..`), in no particular order; a failure is one
    /// line naming the folder (`cannot be listed: Permission denied`), not Foundation's dump.
    public static func names(in folder: String) throws -> [String] {
        do { return try FileManager.default.contentsOfDirectory(atPath: folder) } catch {
            throw FoundationError.fileError(error, action: "cannot be listed", file: folder)
        }
    }

    /// Adds `data` at the end of the file at `path` (made when missing), as a CI server's output
    /// files are written to; a failure is one line naming the file.
    public static func append(_ data: Data, to path: String) throws {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw Diagnostic.system("cannot be written", file: path, code: errno) }
        defer { close(fd) }
        try inFile(path, only: FileProblem.self) { try data.withUnsafeBytes { try writeAll(fd, $0) } }
    }
}

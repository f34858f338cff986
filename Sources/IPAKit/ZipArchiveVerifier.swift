import CLibZip
import Foundation

/// Reopens a freshly written archive and reads every entry back, so libzip checks each CRC
/// and size; entries are split across threads, each with its own handle.
enum ZipArchiveVerifier {
    static func verify(_ path: String, threads: Int, displayName: String) throws {
        var error: Int32 = 0
        guard let archive = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &error) else {
            throw IPAError("failed verification: \(ZipArchiveWriter.message(forCode: error))", file: displayName)
        }
        let count = Int(zip_get_num_entries(archive, 0))
        zip_discard(archive)
        let workers = max(1, min(threads, count))
        let failures = FailureBox()
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var openError: Int32 = 0
            guard let handle = zip_open(path, ZIP_RDONLY, &openError) else {
                failures.record(IPAError("failed verification: \(ZipArchiveWriter.message(forCode: openError))", file: displayName))
                return
            }
            defer { zip_discard(handle) }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            var index = worker
            while index < count {
                guard let file = zip_fopen_index(handle, UInt64(index), 0) else {
                    let name = zip_get_name(handle, UInt64(index), 0).map { String(cString: $0) } ?? "entry \(index)"
                    failures.record(IPAError("failed verification: \(String(cString: zip_strerror(handle)))", file: displayName, entry: name))
                    return
                }
                var result: Int64 = 0
                repeat {
                    result = buffer.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress, UInt64($0.count)) }
                } while result > 0
                if result < 0 {
                    let name = zip_get_name(handle, UInt64(index), 0).map { String(cString: $0) } ?? "entry \(index)"
                    failures.record(IPAError("failed verification: \(String(cString: zip_file_strerror(file)))", file: displayName, entry: name))
                }
                zip_fclose(file)
                index += workers
            }
        }
        if let failure = failures.first { throw failure }
    }
}

final class FailureBox: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var first: Error?

    func record(_ error: Error) {
        lock.lock()
        if first == nil { first = error }
        lock.unlock()
    }
}

import Foundation
import FuzzDriver
import IPAKit

/// The zip reader takes a path, so each input is written to a file in memory-backed /dev/shm.
let path = "/dev/shm/adhocbuild-fuzz-ipa-\(getpid()).ipa"

runFuzzer { data in
    FileManager.default.createFile(atPath: path, contents: data)
    var limits = ZipArchiveReader.Limits()
    limits.maxTotalSize = 64 << 20
    limits.maxEntryReadSize = 16 << 20
    if let package = try? AppPackage.open(path, limits: ReaderLimits(archive: limits)) {
        _ = AppInspection.summary(package)
        _ = AppVerifier().verify(package)
    }
    // Every entry read in pieces, as the seal verifier reads them: through a small buffer (libzip's
    // streaming inflate) and through one as large as the entry (libdeflate, in one call).
    if let reader = try? ZipArchiveReader(path: path, limits: limits) {
        for entry in reader.entries where !entry.isDirectory && entry.size <= 1 << 20 {
            try? reader.readChunks(entry, chunkSize: 4096) { _ in }
            try? reader.readChunks(entry, chunkSize: 1 << 20) { _ in }
        }
    }
}

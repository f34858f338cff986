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
    if let package = try? AppPackage.open(path, limits: limits) {
        _ = AppInspection.summary(package)
        _ = AppVerifier().verify(package)
    }
}

import CodeSign
import Foundation
import FuzzDriver

runFuzzer { data in
    guard let file = try? MachOFile(data: data) else { return }
    for slice in file.slices {
        _ = slice.minimumOS?.version.description
        guard let signature = try? slice.embeddedSignature() else { continue }
        let written = signature.bytes()
        guard let reread = try? EmbeddedSignature(bytes: written) else { preconditionFailure("a written signature does not read back") }
        precondition(reread.bytes() == written, "signature round trip changed the bytes")
        for directory in signature.codeDirectories where directory.pageSize > 0 && directory.effectiveCodeLimit <= UInt64(slice.bytes.count)
        {
            _ = CodeHashing.pageHashes(
                slice.bytes, limit: Int(directory.effectiveCodeLimit), pageSize: directory.pageSize, type: directory.hashType)
        }
        _ = signature.requirements?.description
    }
}

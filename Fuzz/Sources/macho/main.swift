import CodeSign
import Foundation
import FuzzDriver

runFuzzer { data in
    // The parse the verifier uses over a mapped executable must agree with the whole parse: the same
    // verdict, and the same layout and signature bytes.
    let bytes = [UInt8](data)
    let layout = try? MachOFile(size: bytes.count) { offset, count in
        Array(bytes[min(max(offset, 0), bytes.count)..<min(max(offset, 0) + max(count, 0), bytes.count)])
    }
    guard let file = try? MachOFile(data: data) else {
        precondition(layout == nil, "the layout parse accepted what the whole parse refused")
        return
    }
    guard let layout else { preconditionFailure("the layout parse refused what the whole parse accepted") }
    for (a, b) in zip(layout.slices, file.slices) {
        precondition(a.segments == b.segments && a.codeSignature == b.codeSignature, "the layout parse read another layout")
        precondition(a.signatureBytes.map(Array.init) == b.signatureBytes.map(Array.init), "the layout parse read another signature")
    }
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

/// The hashes a CodeDirectory holds for code pages, computed with libcrypto. Pure functions of
/// their input, so pages can be hashed on several threads.
public enum CodeHashing {
    /// The hash of every page of `bytes[0..<limit]`: pages of `pageSize` bytes (the last one shorter),
    /// or the whole range as one page when `pageSize` is 0.
    public static func pageHashes(_ bytes: [UInt8], limit: Int, pageSize: Int, type: HashType) -> [[UInt8]] {
        let end = min(max(limit, 0), bytes.count)
        return bytes.withUnsafeBytes { buffer in
            guard pageSize > 0 else { return [Digest.hash(type, UnsafeRawBufferPointer(rebasing: buffer[0..<end]))] }
            return stride(from: 0, to: end, by: pageSize).map { start in
                Digest.hash(type, UnsafeRawBufferPointer(rebasing: buffer[start..<min(start + pageSize, end)]))
            }
        }
    }

    /// The hash of one page: page `index` of `bytes[0..<limit]`.
    public static func pageHash(_ bytes: [UInt8], index: Int, limit: Int, pageSize: Int, type: HashType) -> [UInt8] {
        let end = min(max(limit, 0), bytes.count)
        let start = min(index * pageSize, end)
        return bytes.withUnsafeBytes { Digest.hash(type, UnsafeRawBufferPointer(rebasing: $0[start..<min(start + pageSize, end)])) }
    }
}

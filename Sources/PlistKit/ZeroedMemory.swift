#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Zero-filled raw storage from `calloc`: a large block comes as fresh zero pages, so only the
/// pages a reader touches cost anything (initialising a pointer would write every byte first).
enum ZeroedMemory {
    /// `count` zeroed values of a trivial type; free with `release(_:)`.
    static func allocate<T: BitwiseCopyable>(_: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        guard let raw = calloc(max(1, count), MemoryLayout<T>.stride) else {
            fatalError("out of memory allocating \(count) × \(MemoryLayout<T>.stride) bytes")
        }
        return raw.assumingMemoryBound(to: T.self)
    }

    static func release<T>(_ pointer: UnsafeMutablePointer<T>) { free(pointer) }
}

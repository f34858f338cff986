/// Deflates chunks of files at one `zip` level, each with the method ``DeflateMethod`` picks
/// for its content, or as stored blocks when ``IncompressibleProbe`` finds that deflating would
/// not pay; holds the compressors it has needed so far. One per thread.
public final class ChunkDeflater {
    /// The `zip` level asked for (1-9, or libdeflate's 10-12).
    public let level: Int
    private var libdeflate: [Int: Deflater] = [:]
    private var zlib: [Int: ZlibDeflater] = [:]
    /// libdeflate's level 1, which probes, and level 0, which writes stored blocks.
    private lazy var fastest = Deflater(level: 1)
    private lazy var storedBlocks = Deflater(level: 0)

    /// A deflater for chunks at `zip` level `level`.
    public init(level: Int) { self.level = level }

    /// The method this deflater uses for `chunk`.
    func method(for chunk: UnsafeRawBufferPointer) -> DeflateMethod {
        DeflateMethod.choose(level: level, size: chunk.count, isText: DeflateMethod.looksLikeText(chunk))
    }

    /// Raw deflate of `chunk`: a complete stream, its last block marked final (nil only if
    /// libdeflate fails, which it does not with the room it is given).
    public func deflate(_ chunk: UnsafeRawBufferPointer) -> [UInt8]? {
        if IncompressibleProbe.isIncompressible(chunk, fastest: fastest) { return storedBlocks.deflate(chunk) }
        switch method(for: chunk) {
        case .libdeflate(let level):
            let deflater = libdeflate[level] ?? Deflater(level: level)
            libdeflate[level] = deflater
            return deflater.deflate(chunk)
        case .zlib(let level):
            let deflater = zlib[level] ?? ZlibDeflater(level: level, largestInput: DeflateMethod.smallTextLimit)
            zlib[level] = deflater
            return deflater.deflate(chunk)
        }
    }
}

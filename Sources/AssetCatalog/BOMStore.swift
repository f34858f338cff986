import SystemSupport

/// The BOM container (`BOMStore`) that holds a compiled asset catalog: numbered blocks of bytes
/// and a table of named variables, each naming one block.
///
/// All integers in the container are big-endian. Every block's address and length is checked
/// against the file when the store is opened, so later reads of a block cannot run past the end.
public struct BOMStore: Sendable {
    /// The path the bytes came from, for errors.
    public let file: String
    let bytes: [UInt8]
    /// Each block's place in `bytes`; block 0 is the null block.
    let blocks: [Range<Int>]
    /// Named variables (`CARHEADER`, `RENDITIONS`, …) and the block each names.
    public let variables: [String: Int]

    /// At most this many blocks are accepted (each index entry is 8 bytes, so the table itself
    /// bounds this too).
    static let maximumBlocks = 1 << 22

    /// Reads the header, the block index and the variables table of `bytes`.
    public init(bytes: [UInt8], file: String) throws {
        self.file = file
        self.bytes = bytes
        let whole = ByteView(bytes: bytes, file: file, what: "BOM header")
        guard whole.hasTag(0, "BOMStore") else {
            throw whole.failure("not a BOM store: the file does not start with 'BOMStore'")
        }
        let version = try whole.u32be(8, "version")
        guard version == 1 else { throw whole.failure("BOM version \(version) is not 1") }
        let indexOffset = try whole.u32be(16, "block index offset")
        let indexLength = try whole.u32be(20, "block index length")
        let variablesOffset = try whole.u32be(24, "variables offset")
        let variablesLength = try whole.u32be(28, "variables length")

        let index = try ByteView(bytes: bytes, file: file, what: "BOM header")
            .view(indexOffset, indexLength, "block index", what: "block index at byte \(indexOffset)")
        let count = try index.u32be(0, "block count")
        guard count <= Self.maximumBlocks, count <= (index.count - 4) / 8 else {
            throw index.failure("block count \(count) does not fit the index's \(index.count) bytes")
        }
        var blocks: [Range<Int>] = []
        blocks.reserveCapacity(count)
        for number in 0..<count {
            let address = try index.u32be(4 + 8 * number, "block \(number) address")
            let length = try index.u32be(8 + 8 * number, "block \(number) length")
            guard address <= bytes.count, length <= bytes.count - address else {
                throw index.failure(
                    "block \(number) at byte \(address) (\(length) bytes) runs past the end of the file (\(bytes.count) bytes)")
            }
            blocks.append(address..<(address + length))
        }
        self.blocks = blocks

        let table = try whole.view(variablesOffset, variablesLength, "variables table", what: "variables table at byte \(variablesOffset)")
        let variableCount = try table.u32be(0, "variable count")
        guard variableCount <= table.count / 5 else {
            throw table.failure("variable count \(variableCount) does not fit the table's \(table.count) bytes")
        }
        var variables: [String: Int] = [:]
        var offset = 4
        for number in 0..<variableCount {
            let block = try table.u32be(offset, "variable \(number) block")
            let nameLength = try table.u8(offset + 4, "variable \(number) name length")
            let name = try table.string(offset + 5, nameLength, "variable \(number) name")
            guard block < blocks.count else {
                throw table.failure("variable '\(name)' names block \(block), but there are \(blocks.count) blocks")
            }
            variables[name] = block
            offset += 5 + nameLength
        }
        self.variables = variables
    }

    /// The number of blocks in the index.
    public var blockCount: Int { blocks.count }

    /// A view of block `number`, or an error naming the block and what referred to it.
    func block(_ number: Int, _ what: String) throws -> ByteView {
        guard number > 0, number < blocks.count else {
            throw Diagnostic.assetCatalog("\(what) refers to block \(number), but there are \(blocks.count) blocks", file: file)
        }
        return ByteView(bytes: bytes, range: blocks[number], file: file, what: "block \(number) (\(what))")
    }

    /// The block a named variable refers to, or nil when the store has no such variable.
    func variable(_ name: String) throws -> ByteView? {
        guard let number = variables[name] else { return nil }
        return try block(number, name)
    }

    /// The bytes of a named variable's block, or nil when there is no such variable.
    public func variableBytes(_ name: String) throws -> [UInt8]? {
        guard let view = try variable(name) else { return nil }
        return Array(bytes[view.range])
    }
}

import SystemSupport

/// A stream that cannot be decoded: truncated, corrupted, or larger than the caller allows.
///
/// `description` is one line: where (block number and byte offset in the input), then what is wrong.
public struct LZFSEError: DiagnosticError, Equatable {
    /// What is wrong, quoting the bad value.
    public var message: String
    /// The file the stream came from, when the caller knows it (see ``inFile(_:)``).
    public var file: String?
    /// The block of an LZFSE stream, counted from 0; nil for a bare LZVN stream.
    public var block: Int?
    /// The byte offset in the input where the problem is (the block's header, or the opcode).
    public var offset: Int?
    /// Whether the output would exceed the caller's `maxOutput`, rather than the stream being malformed.
    public var isLimitExceeded: Bool

    public init(_ message: String, block: Int? = nil, offset: Int? = nil, isLimitExceeded: Bool = false) {
        self.message = message
        self.block = block
        self.offset = offset
        self.isLimitExceeded = isLimitExceeded
    }

    /// The same error naming `path` as its file (kept when one is already named).
    public func inFile(_ path: String) -> LZFSEError {
        var copy = self
        if copy.file == nil { copy.file = path }
        return copy
    }

    public var location: String? {
        switch (block, offset) {
        case (let block?, let offset?): return "block \(block) at byte \(offset)"
        case (let block?, nil): return "block \(block)"
        case (nil, let offset?): return "byte \(offset)"
        case (nil, nil): return nil
        }
    }

    public var problem: String { message }
}

/// What the inner decoding loops throw: a message, placed by the caller (block number, offset).
struct StreamFault: Error {
    var message: String
    /// An offset more precise than the caller's, when the loop knows one.
    var offset: Int?
    var isLimitExceeded = false

    init(_ message: String, offset: Int? = nil, isLimitExceeded: Bool = false) {
        self.message = message
        self.offset = offset
        self.isLimitExceeded = isLimitExceeded
    }
}

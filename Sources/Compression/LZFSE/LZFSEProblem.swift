import SystemSupport

/// The kinds of problem decoding an LZFSE or LZVN stream (domain `lzfse`).
public enum LZFSEProblem: String, DiagnosticKind {
    /// The stream is truncated or corrupted.
    case malformed
    /// The stream decodes to more than the caller allows.
    case limitExceeded

    public static let domain = "lzfse"
}

extension DiagnosticCode {
    /// A problem decoding a compressed stream: `.lzfse(.malformed)`.
    public static func lzfse(_ kind: LZFSEProblem) -> DiagnosticCode { DiagnosticCode(kind) }
}

extension Diagnostic {
    /// A stream that cannot be decoded: truncated, corrupted, or larger than the caller allows, placed at
    /// its block (LZFSE, counted from 0) and byte offset in the input.
    public static func lzfse(
        _ message: String, block: Int? = nil, offset: Int? = nil, isLimitExceeded: Bool = false
    ) -> Diagnostic {
        let place: Diagnostic.Place? = block.map { .block($0, byte: offset) } ?? offset.map { .byte($0) }
        return Diagnostic(.lzfse(isLimitExceeded ? .limitExceeded : .malformed), message, places: place.map { [$0] } ?? [])
    }
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

import SystemSupport

/// A problem reading a compiled asset catalog (`Assets.car`): a damaged or hostile file, or a
/// rendition this reader cannot turn into pixels.
///
/// `description` is one line: the file, where in it (a block, a tree, a rendition), then what is
/// wrong, quoting the bad value.
public struct AssetCatalogError: DiagnosticError, Equatable {
    /// What kind of problem this is.
    public enum Kind: Sendable, Equatable {
        /// The file is not a well-formed catalog (bad magic, an offset or length out of bounds, …).
        case malformed
        /// The file is well formed but holds a rendition this reader does not decode; the payload
        /// names the encoding (`lzfse`, `deepmap2`, `PDF `, …).
        case notDecodable(String)
    }

    public var kind: Kind
    /// The catalog file (or the name it was opened under).
    public var file: String?
    /// Where in it: a block, a tree, a rendition.
    public var location: String?
    /// What is wrong, quoting the bad value.
    public var problem: String

    /// An error about `file` at `location`.
    public init(_ problem: String, kind: Kind = .malformed, file: String? = nil, location: String? = nil) {
        self.problem = problem
        self.kind = kind
        self.file = file
        self.location = location
    }
}

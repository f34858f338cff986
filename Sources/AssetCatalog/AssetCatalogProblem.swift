import SystemSupport

/// The kinds of problem reading a compiled asset catalog (domain `assetCatalog`).
public enum AssetCatalogProblem: String, DiagnosticKind {
    /// The file is not a well-formed catalog.
    case malformed
    /// A well-formed rendition in an encoding adhocbuild does not decode (named in the message).
    case notDecodable

    public static let domain = "assetCatalog"
}

extension DiagnosticCode {
    /// A problem reading an asset catalog: `.assetCatalog(.malformed)`.
    public static func assetCatalog(_ kind: AssetCatalogProblem) -> DiagnosticCode { DiagnosticCode(kind) }
}

extension Diagnostic {
    /// A problem reading an asset catalog: the file, the place (`BOM header`, `rendition AppIcon 60x60@2x`),
    /// then what is wrong.
    public static func assetCatalog(
        _ message: String, kind: AssetCatalogProblem = .malformed, file: String? = nil, location: String? = nil
    ) -> Diagnostic {
        Diagnostic(.assetCatalog(kind), message, file: file, places: location.map { [.text($0)] } ?? [])
    }
}

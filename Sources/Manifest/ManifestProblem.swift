import SystemSupport

/// The kinds of problem making a manifest, an install page or an index (domain `manifest`).
public enum ManifestProblem: String, DiagnosticKind {
    /// The input cannot be published as asked (a folder for an ipa, an expired profile, …).
    case invalid
    /// A base URL that files cannot be joined to.
    case baseURL
    /// A template that cannot be read or rendered.
    case template
    /// A text too long for a QR code.
    case qrCode
    /// A `build.json` that cannot be read.
    case buildInfo

    public static let domain = "manifest"
}

extension DiagnosticCode {
    /// A distribution problem: `.manifest(.template)`.
    public static func manifest(_ kind: ManifestProblem) -> DiagnosticCode { DiagnosticCode(kind) }
}

extension Diagnostic {
    /// A problem making a manifest, an install page or an index from an ipa: the file, then what is wrong.
    public static func manifest(_ message: String, file: String? = nil) -> Diagnostic {
        Diagnostic(.manifest(.invalid), message, file: file)
    }

    /// A folder given where an ipa is needed.
    public static func notAnIPA(_ path: String) -> Diagnostic {
        .manifest("is a folder, not an .ipa; package it first (adhocbuild package)", file: path)
    }

    /// A distribution problem of `kind` told in one line (`test:2: unclosed tag`).
    public static func manifest(_ kind: ManifestProblem, _ message: String) -> Diagnostic {
        Diagnostic(.manifest(kind), message)
    }
}

import SystemSupport

/// The kinds of problem packaging, reading or checking an app, an ipa, a provisioning profile or an
/// image (domain `ipa`).
public enum IPAProblem: String, DiagnosticKind {
    /// The app, archive or profile is not as it must be (damaged, unsafe, inconsistent).
    case invalid
    /// A documented limit (entries, sizes, ratio) was exceeded.
    case limitExceeded
    /// An image that cannot be decoded (not a PNG, a bad chunk, an unsupported form).
    case image
    /// A change the packager made to a signed app that invalidates its signature (a warning: a
    /// different profile embedded).
    case signatureInvalidated

    public static let domain = "ipa"
}

extension DiagnosticCode {
    /// A problem with an app, an ipa or a profile: `.ipa(.invalid)`.
    public static func ipa(_ kind: IPAProblem) -> DiagnosticCode { DiagnosticCode(kind) }
}

extension Diagnostic {
    /// A problem packaging, reading or checking an app, an ipa or a provisioning profile: the file, then
    /// the archive entry (or key path), then what is wrong. An exceeded limit gets the hint that limits
    /// can be raised.
    public static func ipa(
        _ message: String, file: String? = nil, entry: String? = nil, isLimitExceeded: Bool = false
    ) -> Diagnostic {
        Diagnostic(
            .ipa(isLimitExceeded ? .limitExceeded : .invalid), message, file: file,
            places: entry.map { [.entry($0)] } ?? [], hint: isLimitExceeded ? raiseLimitsHint : nil)
    }

    /// A finding of the pre-publish check (``AppVerifier``, `adhocbuild verify`) about `subject`, the bundle
    /// or file it concerns: printed `subject: message`, and `subject` is kept for callers that act on it.
    public static func finding(_ severity: Severity, _ message: String, subject: String?) -> Diagnostic {
        var diagnostic = Diagnostic(.ipa(.invalid), message, places: subject.map { [.text($0)] } ?? [], severity: severity)
        diagnostic.subject = subject
        return diagnostic
    }

    /// An image that cannot be decoded, saying why.
    public static func image(_ message: String) -> Diagnostic { Diagnostic(.ipa(.image), message) }
}

import SystemSupport

/// The kinds of problem found with a user's files and requests: an environment, a project, a version
/// number, a release (domain `build`).
public enum BuildProblem: String, DiagnosticKind {
    /// A value or file that is not as it must be.
    case invalid
    /// A `$(VAR)` reference that cannot be expanded (the variable is the diagnostic's subject when
    /// it is undefined).
    case expansion
    /// A step of a release that failed (the step is the diagnostic's subject).
    case stepFailed
    /// A change that breaks an app's signature (a warning when allowed, or for an ad-hoc seal).
    case signatureBroken
    /// What a release tells of a build's signature that does not stop it: unsigned, ad-hoc, or an
    /// expired profile or certificate let through (`--allow-expired`).
    case signature

    public static let domain = "build"
}

extension DiagnosticCode {
    /// A problem with the user's files: `.build(.invalid)`.
    public static func build(_ kind: BuildProblem) -> DiagnosticCode { DiagnosticCode(kind) }
}

extension Diagnostic {
    /// A problem found with a user's files: the file, then the key path, then what is wrong, quoting the
    /// bad value. Warnings use the same shape, so checks report everything together.
    public static func build(
        _ message: String, file: String? = nil, keyPath: String? = nil, severity: Severity = .error
    ) -> Diagnostic {
        Diagnostic(.build(.invalid), message, file: file, places: keyPath.map { [.keyPath($0)] } ?? [], severity: severity)
    }

    /// A `$(VAR)` reference that cannot be expanded; `undefinedVariable` names the variable when that is why.
    public static func expansion(_ message: String, undefinedVariable: String? = nil) -> Diagnostic {
        var diagnostic = Diagnostic(.build(.expansion), message)
        diagnostic.subject = undefinedVariable
        return diagnostic
    }

    /// A release step that failed and why, with the hint of the error that stopped it: `Package failed: …`.
    public static func stepFailed(_ step: String, reason: String, hint: String? = nil) -> Diagnostic {
        var diagnostic = Diagnostic(.build(.stepFailed), reason, places: [.text("\(step) failed")], hint: hint)
        diagnostic.subject = step
        return diagnostic
    }
}

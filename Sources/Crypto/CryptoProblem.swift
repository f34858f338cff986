import SystemSupport

/// The kinds of problem of libcrypto itself (domain `crypto`).
public enum CryptoProblem: String, DiagnosticKind {
    /// libcrypto could not do what it always can (its random generator not seeded, say).
    case unavailable

    public static let domain = "crypto"
}

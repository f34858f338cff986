import SystemSupport

/// The kinds of problem reading or checking a Mach-O file, an embedded signature, a resource seal,
/// a signing identity or a profile's signature (domain `codesign`).
public enum CodeSignProblem: String, DiagnosticKind {
    /// Hostile or damaged input, or a signature that cannot be made or checked.
    case invalid

    public static let domain = "codesign"
}

extension DiagnosticCode {
    /// A code signing problem: `.codeSign(.invalid)`.
    public static func codeSign(_ kind: CodeSignProblem) -> DiagnosticCode { DiagnosticCode(kind) }
}

extension Diagnostic {
    /// A code signing problem: the file, the place (`byte 0x1234`, `slice arm64`, `CodeDirectory`), then
    /// what is wrong. Hostile input always ends up here, never in a trap.
    public static func codeSign(
        _ message: String, file: String? = nil, location: String? = nil, hint: String? = nil
    ) -> Diagnostic {
        Diagnostic(.codeSign(.invalid), message, file: file, places: location.map { [.text($0)] } ?? [], hint: hint)
    }

    /// A code signing problem about the bytes at `offset`, placed as `byte 0x…`.
    public static func codeSign(at offset: Int, _ message: String) -> Diagnostic {
        Diagnostic(.codeSign(.invalid), message, places: [.hexByte(offset)])
    }
}

/// One thing that breaks a seal: the code item it belongs to, the file in it, and what is wrong.
///
/// `description` is the line `codesign verify` prints:
/// `Payload/Test.app/Frameworks/X.framework: Info.plist: modified (sealed SHA-256 ab12cd34…, now 77ff0011…)`.
public struct CodeSealProblem: Sendable, Equatable, CustomStringConvertible {
    /// The code item, as the user sees its path (`Payload/Test.app/PlugIns/N.appex`).
    public var bundle: String
    /// The file relative to the bundle (`Info.plist`, `Frameworks/X.framework/X`), or nil for the bundle as a whole.
    public var file: String?
    /// What was found, for callers that act on it without reading ``message``.
    public var kind: CodeSignProblem
    public var message: String

    public init(bundle: String, file: String?, kind: CodeSignProblem, message: String) {
        self.bundle = bundle
        self.kind = kind
        self.file = file
        self.message = message
    }

    public var description: String { [bundle, file, message].compactMap { $0 }.joined(separator: ": ") }
}

/// One finding of a code item before its bundle is named: what kind, the file relative to the bundle, the line.
typealias SealFinding = (kind: CodeSignProblem, file: String, message: String)

extension Array where Element == UInt8 {
    /// The first 8 hex digits and an ellipsis, enough to tell two hashes apart in a message.
    var shortHex: String { String(hexString.prefix(8)) + "…" }
}

extension HashType {
    /// The name messages use (`SHA-256`).
    var displayName: String {
        switch self {
        case .sha1: return "SHA-1"
        case .sha256: return "SHA-256"
        case .sha256Truncated: return "SHA-256/20"
        case .sha384: return "SHA-384"
        }
    }
}

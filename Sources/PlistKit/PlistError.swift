import SystemSupport

/// Everything that can go wrong reading, writing or addressing a plist, with where it went wrong.
///
/// `description` is one line: the file, then the place (line:column, byte offset
/// or key path), then what is wrong, quoting the bad value.
public struct PlistError: DiagnosticError, Equatable {
    /// What kind of failure it is, for callers that branch on it.
    public enum Kind: String, Sendable {
        /// The bytes are not a well-formed plist of the detected format.
        case malformed
        /// A documented limit (depth, size, count) was exceeded.
        case limitExceeded
        /// The value cannot be represented in the requested output format.
        case unrepresentable
        /// A key path does not resolve, or points at the wrong kind of value.
        case keyPath
        /// Reading or writing the file itself failed.
        case io
    }

    /// Where in the input the problem is.
    public enum Location: Equatable, Sendable {
        case none
        case byteOffset(Int)
        case line(Int, column: Int)
    }

    public var kind: Kind
    public var message: String
    public var position: Location
    /// The key path of the value concerned, in PlistBuddy notation, when known.
    public var keyPath: String?
    /// The file concerned, when known; filled in by whoever opened it.
    public var file: String?

    public init(
        _ kind: Kind, _ message: String, at location: Location = .none, keyPath: String? = nil,
        file: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.position = location
        self.keyPath = keyPath
        self.file = file
    }

    /// The same error, naming `file` (unless it already names one).
    public func inFile(_ file: String) -> PlistError {
        var copy = self
        if copy.file == nil { copy.file = file }
        return copy
    }

    /// The position and the key path: `3:7: at 'CFBundleVersion'`.
    public var location: String? {
        var parts: [String] = []
        switch position {
        case .none: break
        case .byteOffset(let offset): parts.append("byte \(offset)")
        case .line(let line, let column): parts.append("\(line):\(column)")
        }
        if let keyPath { parts.append(keyPath.isEmpty ? "at the root" : "at '\(keyPath)'") }
        return parts.isEmpty ? nil : parts.joined(separator: ": ")
    }

    public var problem: String { message }
    public var hint: String? { kind == .limitExceeded ? raiseLimitsHint : nil }
}

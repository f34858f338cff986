/// A secret (a secret access key, a session token): it prints as `<redacted>` in every description,
/// interpolation, `dump` and mirror, so it cannot end up in a log or an error by accident.
///
/// Only this module reads the value (to sign and to send the token).
public struct SecretText: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let value: String

    public init(_ value: String) { self.value = value }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: []) }

    /// Whether the secret is empty.
    public var isEmpty: Bool { value.isEmpty }

    /// The secret itself, for signing.
    func reveal() -> String { value }
}

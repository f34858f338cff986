/// An access key pair (and session token) for signing requests, and where it was found.
///
/// Descriptions show the access key's last four characters and the source, never the secret key or
/// the token (``SecretText``).
public struct AWSCredentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The access key id (`AKIA…`): not a secret, but shown masked as the AWS CLI shows it.
    public let accessKeyID: String
    public let secretAccessKey: SecretText
    /// A temporary credential's session token (sent as `X-Amz-Security-Token`).
    public let sessionToken: SecretText?
    /// Where they were found: `environment` or `profile 'ci' in /home/me/.aws/credentials`.
    public let source: String

    public init(accessKeyID: String, secretAccessKey: SecretText, sessionToken: SecretText? = nil, source: String) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.source = source
    }

    /// `****WXYZ`: the access key id as `aws configure list` shows it.
    public var maskedAccessKeyID: String { String(repeating: "*", count: max(0, accessKeyID.count - 4)) + accessKeyID.suffix(4) }

    public var description: String {
        "access key \(maskedAccessKeyID)\(sessionToken == nil ? "" : " with a session token") from \(source)"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

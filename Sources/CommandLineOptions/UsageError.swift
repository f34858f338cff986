/// A mistake in how a command was called: printed with the command's usage line, exit code 2.
public struct UsageError: Error, Equatable, Sendable {
    public var message: String
    /// Names from the tool down to the command that was being parsed.
    public var commandPath: [String]

    public init(message: String, commandPath: [String]) {
        self.message = message
        self.commandPath = commandPath
    }
}

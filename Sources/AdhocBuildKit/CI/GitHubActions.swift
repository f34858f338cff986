import Foundation
import SystemSupport

/// What GitHub Actions reads from a step, each in its own syntax: the `GITHUB_OUTPUT` file,
/// workflow commands on standard output, and the Markdown of `GITHUB_STEP_SUMMARY`.
public enum GitHubActions {
    /// One output for `GITHUB_OUTPUT`: `name=value` and a newline, or, for a value with a line end
    /// (`\n` or `\r`) in it, GitHub's multi-line form `name<<DELIMITER`, the value, then `DELIMITER`,
    /// each on its own line, with a random delimiter that is no line of the value. Either way the
    /// value reads back as it was and cannot add an output of its own. `name` is one of ours.
    public static func output(_ name: String, _ value: String, delimiter makeDelimiter: () -> String = randomDelimiter) -> String {
        guard value.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" }) else { return "\(name)=\(value)\n" }
        var delimiter = makeDelimiter()
        while value.contains(delimiter) { delimiter = makeDelimiter() }
        return "\(name)<<\(delimiter)\n\(value)\n\(delimiter)\n"
    }

    /// `ghadelimiter_` and a random UUID, as GitHub's own toolkit makes them.
    public static func randomDelimiter() -> String { "ghadelimiter_" + UUID().uuidString }

    /// The message of a workflow command (`::warning title=T::MESSAGE`): `%`, CR and LF percent-encoded,
    /// as GitHub's runner decodes them.
    public static func commandMessage(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(
            of: "\n", with: "%0A")
    }

    /// Text for the step summary's Markdown: `<`, `*` and `_` escaped so they are not markup, and
    /// control characters shown (``UntrustedText``) so a value cannot add lines of its own.
    public static func markdown(_ text: String) -> String {
        UntrustedText.line(text).replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: "*", with: "\\*")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}

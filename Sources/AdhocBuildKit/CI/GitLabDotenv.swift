/// A GitLab dotenv report (`artifacts:reports:dotenv`), as GitLab reads it: one `KEY=VALUE` per line,
/// the value everything after the first `=`, trimmed of blanks, quotes kept as they are, no escapes,
/// no multi-line values (an empty line fails the upload).
public enum GitLabDotenv {
    /// `KEY=VALUE`, without the line end; nil when GitLab cannot read `value` back as it is: a
    /// control character (a line end would add a variable of its own), or a blank at either end.
    public static func line(_ key: String, _ value: String) -> String? {
        guard representable(value) else { return nil }
        return "\(key)=\(value)"
    }

    /// Whether `value` reads back unchanged from one line of the report.
    public static func representable(_ value: String) -> Bool {
        let scalars = value.unicodeScalars
        if scalars.contains(where: { $0.properties.generalCategory == .control }) { return false }
        return scalars.first != " " && scalars.last != " "
    }
}

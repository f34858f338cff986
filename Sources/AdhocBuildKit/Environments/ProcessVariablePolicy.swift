/// Which variables of the process environment an environment file may read: its `$(NAME)`
/// references (after `--setting`, its own `Variables` and the built-ins) and a base URL template's
/// `{NAME}`. Environment files and builds often come from others, and what they read from the
/// process is published (the install page, the manifest, `build.json`, the app's
/// `environment.plist`), so the process environment is read only where it is allowed:
///
/// - the CI variables adhocbuild reads itself (``CIEnvironment/expandableVariables``: build
///   counters, commits, branches, Jenkins' `BUILD_URL`);
/// - the names given with `--allow-env NAME` (``allowed``).
///
/// A secret is never read, even when allowed: the variables adhocbuild takes signing secrets from
/// (``toolSecrets``, and the one `--sign-password-env` or `SignPasswordEnv` names, in ``secrets``),
/// and every name that looks like a secret's (``secretLikeReason(_:)``).
public struct ProcessVariablePolicy: Sendable, Equatable {
    /// Names given with `--allow-env`.
    public var allowed: Set<String>
    /// More names adhocbuild reads secrets from in this run (the variable `--sign-password-env` names).
    public var secrets: Set<String>

    public init(allowed: some Sequence<String> = [String](), secrets: some Sequence<String> = [String]()) {
        self.allowed = Set(allowed)
        self.secrets = Set(secrets)
    }

    /// The variables adhocbuild reads the signing identity, its password or the password's file from.
    public static let toolSecrets = [SigningRequest.identityVariable, SigningRequest.passwordVariable, SigningRequest.passwordFileVariable]

    /// Parts of a name that mark it as a secret's wherever they are (`AWS_SECRET_ACCESS_KEY`, `NPM_TOKEN`).
    public static let secretFragments = ["PASSWORD", "PASSWD", "PASSPHRASE", "SECRET", "TOKEN", "CREDENTIAL", "PRIVATE", "APIKEY"]
    /// `_`-separated words that mark a name as a secret's (`AWS_ACCESS_KEY_ID`, `SIGNING_KEY`, `DB_PASS`).
    public static let secretWords = ["KEY", "PASS", "AUTH", "PAT"]

    /// What may be done with a variable of the process environment.
    public enum Verdict: Sendable, Equatable {
        /// It may be read.
        case allowed
        /// It is not allowed; `--allow-env` would allow it.
        case notAllowed
        /// It is never read; the reason says why.
        case secret(reason: String)
    }

    public func verdict(for name: String) -> Verdict {
        if Self.toolSecrets.contains(name) || secrets.contains(name) {
            return .secret(reason: "adhocbuild reads it for signing")
        }
        if let reason = Self.secretLikeReason(name) { return .secret(reason: reason) }
        return allowed.contains(name) || CIEnvironment.expandableVariables.contains(name) ? .allowed : .notAllowed
    }

    /// Why `name` looks like a secret's (`its name contains SECRET`), or nil; letter case does not matter.
    public static func secretLikeReason(_ name: String) -> String? {
        let upper = name.uppercased()
        if let fragment = secretFragments.first(where: { upper.contains($0) }) { return "its name contains \(fragment)" }
        let words = upper.split(separator: "_").map(String.init)
        if let word = secretWords.first(where: { words.contains($0) }) { return "its name has the word \(word)" }
        return nil
    }

    /// The one-line problem of reading `name` from the process environment for `reference`
    /// (`$(NAME)`, `{NAME}`), or nil when it may be read. `isSet` tells a variable that is not
    /// allowed but set (an error, so that it is never silently left out) from one that is not set
    /// at all (nil: then it is simply undefined). With `settable` (a `$(NAME)` of an environment),
    /// the problem says how to give a value instead: in `Variables` or with `--setting NAME=VALUE`.
    public func problem(reading name: String, as reference: String, isSet: Bool, settable: Bool) -> String? {
        let instead = settable ? "define it in Variables, or give it with --setting \(name)=VALUE" : nil
        switch verdict(for: name) {
        case .allowed:
            return nil
        case .notAllowed:
            guard isSet else { return nil }
            return "\(reference) is not allowed from the process environment (allow it with --allow-env \(name)"
                + (instead.map { ", \($0))" } ?? ")")
        case .secret(let reason):
            return "\(reference) is never expanded from the process environment: \(reason), and --allow-env cannot allow it"
                + (instead.map { " (\($0))" } ?? "")
        }
    }
}

import PlistKit

/// Whether signed entitlements are allowed by a provisioning profile's Entitlements, as iOS judges
/// them at install: the application-identifier is the profile's with its wildcard resolved to the
/// bundle id, the team identifier and aps-environment are equal, keychain access groups and other
/// lists match the profile's entries (which may end in `*`), a `true` the profile does not grant is
/// refused (get-task-allow on a distribution profile), and a key the profile does not have is named.
public enum EntitlementsPolicy {
    /// Problems with `signed` against the profile's `granted` entitlements, one line each.
    public static func problems(signed: PlistDictionary, granted: PlistDictionary, bundleIdentifier: String?) -> [String] {
        var problems: [String] = []
        var ungranted = 0, otherwise = 0
        for (key, value) in signed {
            guard let allowed = granted[key] else {
                ungranted += 1
                if ungranted <= maxListed { problems.append("entitlement \(key) is not granted by the profile") }
                continue
            }
            guard otherwise < maxListed else {
                otherwise += valueProblems(key, value, allowed: allowed, bundleIdentifier: bundleIdentifier).isEmpty ? 0 : 1
                continue
            }
            let found = valueProblems(key, value, allowed: allowed, bundleIdentifier: bundleIdentifier)
            otherwise += found.isEmpty ? 0 : 1
            problems += found
        }
        if ungranted > maxListed { problems.append("and \(ungranted - maxListed) more entitlements the profile does not grant") }
        if otherwise > maxListed { problems.append("and \(otherwise - maxListed) more entitlements the profile allows otherwise") }
        return problems
    }

    /// How many problems of one kind are listed before the rest are counted: a hostile signature with
    /// a million entitlements is told in a few lines.
    static let maxListed = 10

    /// The problems of one signed entitlement the profile has.
    private static func valueProblems(_ key: String, _ value: PlistValue, allowed: PlistValue, bundleIdentifier: String?) -> [String] {
        var problems: [String] = []
        switch key {
        case "application-identifier":
            problems += applicationIdentifierProblems(value, allowed, bundleIdentifier: bundleIdentifier)
        case "com.apple.developer.team-identifier", "aps-environment":
            if value != allowed { problems.append("entitlement \(key) is \(show(value)), the profile's is \(show(allowed))") }
        case "get-task-allow":
            if value.boolValue == true && allowed.boolValue != true {
                problems.append(
                    "entitlement get-task-allow is true, but the profile does not allow debugging (get-task-allow \(show(allowed)))")
            } else if value.boolValue == nil {
                problems.append("entitlement get-task-allow is \(value.kindWithArticle), not a bool")
            }
        default:
            if !isAllowed(value, by: allowed) {
                problems.append("entitlement \(key) is \(show(value)), the profile allows \(show(allowed))")
            }
        }
        return problems
    }

    /// Problems with the signed application-identifier against the bundle id alone (when no profile is embedded).
    public static func bundleIdentifierProblems(signed: PlistDictionary, bundleIdentifier: String?) -> [String] {
        guard let bundleIdentifier, let identifier = signed["application-identifier"]?.stringValue else { return [] }
        guard let dot = identifier.firstIndex(of: "."), identifier[identifier.index(after: dot)...] == bundleIdentifier else {
            return ["entitlement application-identifier \(identifier) does not name the bundle id \(bundleIdentifier)"]
        }
        return []
    }

    private static func applicationIdentifierProblems(_ value: PlistValue, _ allowed: PlistValue, bundleIdentifier: String?) -> [String] {
        guard let identifier = value.stringValue, let pattern = allowed.stringValue else {
            return ["entitlement application-identifier is \(show(value)), the profile's is \(show(allowed))"]
        }
        var expected = pattern
        if pattern.contains("*"), let bundleIdentifier, let dot = pattern.firstIndex(of: ".") {
            expected = pattern[..<dot] + "." + bundleIdentifier
            if !wildcardMatch(pattern, expected) {
                return ["the profile's application-identifier \(pattern) does not cover the bundle id \(bundleIdentifier)"]
            }
        }
        var problems: [String] = []
        if pattern.contains("*") && bundleIdentifier == nil {
            if !wildcardMatch(pattern, identifier) {
                problems.append("entitlement application-identifier \(identifier) does not match the profile's \(pattern)")
            }
        } else if identifier != expected {
            let resolved = expected == pattern ? "" : " (\(pattern) with the bundle id)"
            problems.append("entitlement application-identifier is \(identifier), the profile's is \(expected)\(resolved)")
        }
        return problems
            + bundleIdentifierProblems(signed: PlistDictionary([("application-identifier", value)]), bundleIdentifier: bundleIdentifier)
    }

    /// Whether a signed value is within what the profile grants: `*` grants anything; a string may
    /// end in (or hold) `*`; a list grants each of its entries; `true` grants a bool; else equal.
    static func isAllowed(_ value: PlistValue, by allowed: PlistValue) -> Bool {
        switch (value, allowed) {
        case (_, .string("*")): return true
        case (.string(let text), .string(let pattern)): return wildcardMatch(pattern, text)
        case (.string(let text), .array(let patterns)): return patterns.contains { $0.stringValue.map { wildcardMatch($0, text) } ?? false }
        case (.array(let values), .string), (.array(let values), .array): return values.allSatisfy { isAllowed($0, by: allowed) }
        case (.bool(let flag), .bool(let granted)): return !flag || granted
        default: return value == allowed
        }
    }

    /// Whether `text` matches `pattern`, where each `*` stands for any run of characters.
    static func wildcardMatch(_ pattern: String, _ text: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return pattern == text }
        guard text.hasPrefix(parts[0]), text.hasSuffix(parts[parts.count - 1]),
            text.count >= parts[0].count + parts[parts.count - 1].count
        else { return false }
        var rest = Substring(text.dropFirst(parts[0].count).dropLast(parts[parts.count - 1].count))
        for middle in parts.dropFirst().dropLast() where !middle.isEmpty {
            guard let range = rest.range(of: middle) else { return false }
            rest = rest[range.upperBound...]
        }
        return true
    }

    static func show(_ value: PlistValue) -> String {
        switch value {
        case .string(let text): return "\"\(text)\""
        case .bool(let flag): return flag ? "true" : "false"
        case .array(let values): return "[" + values.map(show).joined(separator: ", ") + "]"
        default: return value.kindWithArticle
        }
    }
}

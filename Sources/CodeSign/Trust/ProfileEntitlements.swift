import IPAKit
import PlistKit

/// The entitlements Xcode signs an exported build with when all it has is the provisioning profile.
///
/// Every key of the profile's `Entitlements` is taken in the profile's order (the plist and DER writers
/// sort them), with these rules:
/// - `application-identifier` (`com.apple.application-identifier` in macOS profiles) is the team prefix
///   and the bundle id: `TEAM.*` and `TEAM.com.example.*` resolve to `TEAM.<bundle id>`.
/// - `keychain-access-groups`: each entry holding a `*` becomes the app's own group `<prefix>.<bundle id>`
///   (Xcode's default) when the entry covers it, else is dropped; exact entries (`com.apple.token`) are kept.
/// - `com.apple.developer.ubiquity-kvstore-identifier`: `TEAM.*` resolves to `TEAM.<bundle id>`, as
///   Xcode's `$(TeamIdentifierPrefix)$(CFBundleIdentifier)` default.
/// - A value that only says "any" is dropped rather than signed: the string `*` (iCloud services,
///   associated domains), a `*` entry in a list, and an empty list (a capability with nothing chosen).
/// - Everything else is copied as granted: `com.apple.developer.team-identifier`, `get-task-allow`,
///   `aps-environment`, `beta-reports-active`, bools, and lists such as `TEAM.*` pass type ids.
///
/// The result passes ``EntitlementsPolicy/problems(signed:granted:bundleIdentifier:)`` against the same
/// profile whenever the profile's app id covers the bundle id.
public enum ProfileEntitlements {
    /// The keys naming the App ID.
    static let applicationIdentifierKeys: Set<String> = ["application-identifier", "com.apple.application-identifier"]
    /// Other keys whose `*` Xcode fills in with the bundle id.
    static let resolvedKeys: Set<String> = ["keychain-access-groups", "com.apple.developer.ubiquity-kvstore-identifier"]

    /// The entitlements to sign the bundle `bundleIdentifier` with under `profile`.
    ///
    /// The application-identifier is the team prefix and `bundleIdentifier` even when the profile's App ID
    /// does not cover it, so that the policy (and ``SigningPreflight``) names the mismatch.
    public static func derive(from profile: ProvisioningProfile, bundleIdentifier: String) -> PlistDictionary {
        var derived = PlistDictionary()
        for (key, value) in profile.entitlements {
            let kept: PlistValue?
            if applicationIdentifierKeys.contains(key), let identifier = value.stringValue, let dot = identifier.firstIndex(of: ".") {
                kept = .string(identifier[..<dot] + "." + bundleIdentifier)
            } else if resolvedKeys.contains(key) {
                kept = resolve(value, bundleIdentifier: bundleIdentifier)
            } else {
                kept = withoutWildcards(value)
            }
            if let kept { derived.append(key, kept) }
        }
        return derived
    }

    /// A value with each wildcard string resolved to its prefix and the bundle id; nil when nothing is left.
    private static func resolve(_ value: PlistValue, bundleIdentifier: String) -> PlistValue? {
        switch value {
        case .string(let pattern):
            return resolved(pattern, bundleIdentifier: bundleIdentifier).map(PlistValue.string)
        case .array(let entries):
            var out: [PlistValue] = []
            for entry in entries {
                let kept = entry.stringValue.map { resolved($0, bundleIdentifier: bundleIdentifier).map(PlistValue.string) } ?? entry
                if let kept, !out.contains(kept) { out.append(kept) }
            }
            return out.isEmpty ? nil : .array(out)
        default:
            return value
        }
    }

    /// `TEAM.*` as `TEAM.<bundle id>`; an exact string as itself; nil when the pattern does not cover that.
    private static func resolved(_ pattern: String, bundleIdentifier: String) -> String? {
        guard pattern.contains("*") else { return pattern }
        guard let dot = pattern.firstIndex(of: ".") else { return nil }
        let candidate = pattern[..<dot] + "." + bundleIdentifier
        return EntitlementsPolicy.wildcardMatch(pattern, candidate) ? candidate : nil
    }

    /// The value without `*` grants: nil for `*` or an empty list, a list without its `*` entries.
    private static func withoutWildcards(_ value: PlistValue) -> PlistValue? {
        switch value {
        case .string("*"):
            return nil
        case .array(let entries):
            let kept = entries.filter { $0 != .string("*") }
            return kept.isEmpty ? nil : .array(kept)
        default:
            return value
        }
    }
}

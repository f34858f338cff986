/// The resource rules (`rules`, version 1) and `rules2` (version 2) Xcode's signer writes into an iOS
/// app's `_CodeSignature/CodeResources`, one generation per set of templates the fixtures show. Each
/// generation is named after the oldest Xcode the fixtures prove it for; which release between two
/// fixtures changed the rules is not known from them.
public enum ResourceRuleGeneration: String, Sendable, CaseIterable {
    /// Xcode 6 (the 6.3 fixture): the Xcode 7 rules; `files2` writes a seal with only a SHA-1 `hash`
    /// as bare data, as `files` does (Xcode 7 writes `{hash}`).
    case xcode6
    /// Xcode 7 (the 7.3 and 7.3.1 fixtures): version 1 seals everything (`^`); version 2 seals
    /// everything at weight 20, above the `nested` rules of weight 10, so nested bundles are sealed
    /// file by file; no `Base.lproj` rule.
    case xcode7
    /// Xcode 9 (the 9.2 fixture): the Xcode 7 rules plus `^Base\.lproj/` at weight 1010 in both sets,
    /// so base localizations are no longer optional.
    case xcode9
    /// Xcode 12 (the 12.3, 12.5 and 14.1 fixtures, and already the 11.3 one): version 1 seals `^.*`; version 2 has no `nested` rules
    /// and no `^` rule, so nested bundles are sealed file by file under `^.*`.
    case xcode12

    /// The version 1 rules.
    public var rules: [ResourceRule] {
        let everything = self == .xcode12 ? "^.*" : "^"
        var list = [
            ResourceRule(everything),
            ResourceRule("^.*\\.lproj/", weight: 1000, optional: true),
            ResourceRule("^.*\\.lproj/locversion.plist$", weight: 1100, omit: true),
            ResourceRule("^version.plist$")
        ]
        if hasBaseLocalizationRule { list.append(ResourceRule("^Base\\.lproj/", weight: 1010)) }
        return list
    }

    /// Whether base localizations have a rule of their own (Xcode 9 on).
    var hasBaseLocalizationRule: Bool { self == .xcode9 || self == .xcode12 }

    /// Whether `files2` writes a plain SHA-1 seal as bare data.
    public var writesBareHashesInFiles2: Bool { self == .xcode6 }

    /// The version 2 rules.
    public var rules2: [ResourceRule] {
        var list = [
            ResourceRule(".*\\.dSYM($|/)", weight: 11),
            ResourceRule("^(.*/)?\\.DS_Store$", weight: 2000, omit: true),
            ResourceRule("^.*"),
            ResourceRule("^.*\\.lproj/", weight: 1000, optional: true),
            ResourceRule("^.*\\.lproj/locversion.plist$", weight: 1100, omit: true),
            ResourceRule("^Info\\.plist$", weight: 20, omit: true),
            ResourceRule("^PkgInfo$", weight: 20, omit: true),
            ResourceRule("^embedded\\.provisionprofile$", weight: 20),
            ResourceRule("^version\\.plist$", weight: 20)
        ]
        if self != .xcode12 {
            list += [
                ResourceRule("^", weight: 20),
                ResourceRule(
                    "^(Frameworks|SharedFrameworks|PlugIns|Plug-ins|XPCServices|Helpers|MacOS|Library/(Automator|Spotlight|LoginItems))/",
                    weight: 10, nested: true),
                ResourceRule("^[^/]+$", weight: 10, nested: true)
            ]
        }
        if hasBaseLocalizationRule { list.append(ResourceRule("^Base\\.lproj/", weight: 1010)) }
        return list
    }
}

import CodeSign
import Foundation
import Testing

/// The rule matcher decides the standard rules' patterns without ICU for plain paths: on every such
/// path it must agree with the regular expression, and leave the others to it.
struct ResourceRuleMatcherTests {
    /// Every pattern of every rule generation, both sets.
    static let patterns: [String] = Array(
        Set(ResourceRuleGeneration.allCases.flatMap { ($0.rules + $0.rules2).map(\.pattern) })
    ).sorted()

    /// Paths near each pattern's edges, then random ones built from the pieces the patterns name.
    static let paths: [String] = {
        var paths = [
            "Info.plist", "Info.plistx", "xInfo.plist", "a/Info.plist", "Info-plist", "version.plist", "versionXplist", "version.plist/",
            "aversion.plist", "version.plis", "en.lproj/locversion.plist", "en.lproj/locversion-plist", "a/en.lproj/locversion.plist",
            ".lproj/locversion.plist", "lproj/locversion.plist", "en.lproj/locversion.plistx", "a/b.lproj/c", "a.lproj", "a.lproj/",
            "Base.lproj/x", "Base.lproj", "Base.lprojx/", "base.lproj/x", "a/Base.lproj/x", "x.dSYM", "x.dSYM/y", "x.dSYMy", ".dSYM",
            "a/.dSYM/", ".DS_Store", "a/.DS_Store", "a.DS_Store", ".DS_Storex", "a/b/.DS_Store", "Frameworks/x", "Frameworks",
            "Frameworks/", "xFrameworks/a", "SharedFrameworks/a", "PlugIns/a.appex/b", "Plug-ins/a", "XPCServices/a", "Helpers/a",
            "MacOS/a", "Library/Automator/x", "Library/Spotlight/x", "Library/LoginItems/x", "Library/Other/x", "Library/Automator",
            "PkgInfo", "PkgInfox", "embedded.provisionprofile", "embedded.provisionprofilex", "a", "a/b", "/", "a/", " ",
            "Info.plist\n", "a\nb.lproj/c", "en.lproj/locversion.plist\n", "x.dSYM\n", "caf\u{E9}.lproj/a", "\u{2028}Info.plist",
            "a\rb", "Assets/\u{1F600}.png"
        ]
        let pieces = [
            "a", "/", ".", "lproj", "Base", "version", "plist", "locversion", "dSYM", "DS_Store", "Info", "Frameworks", "Library",
            "Automator", "-", " ", "PkgInfo", "$", "^", "\\", "(", "*"
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1500 {
            let count = Int.random(in: 1...7, using: &generator)
            paths.append((0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined())
        }
        return paths
    }()

    @Test func theStandardPatternsMatchExactlyWhatTheirRegularExpressionsMatch() throws {
        #expect(Self.patterns.count >= 14)
        for pattern in Self.patterns {
            let expression = try NSRegularExpression(pattern: pattern)
            let matcher = try ResourceRuleMatcher([ResourceRule(pattern)])
            for path in Self.paths {
                let expected = expression.firstMatch(in: path, range: NSRange(path.startIndex..<path.endIndex, in: path)) != nil
                #expect((matcher.rule(for: path) != nil) == expected, "pattern \(pattern) on \(path.debugDescription)")
            }
        }
    }

    @Test func theGenerationsDecideEveryPathAsTheirRegularExpressionsDo() throws {
        for generation in ResourceRuleGeneration.allCases {
            for rules in [generation.rules, generation.rules2] {
                let matcher = try ResourceRuleMatcher(rules)
                let expressions = try rules.map { try NSRegularExpression(pattern: $0.pattern) }
                for path in Self.paths {
                    let range = NSRange(path.startIndex..<path.endIndex, in: path)
                    var expected: ResourceRule?
                    for (rule, expression) in zip(rules, expressions) where expression.firstMatch(in: path, range: range) != nil {
                        if rule.omit {
                            expected = rule
                            break
                        }
                        if expected == nil || rule.effectiveWeight > expected!.effectiveWeight { expected = rule }
                    }
                    #expect(matcher.rule(for: path) == expected, "\(generation) on \(path.debugDescription)")
                }
            }
        }
    }
}

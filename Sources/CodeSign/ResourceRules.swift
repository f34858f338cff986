import Foundation

/// Decides what a resource rule set says about each path of a bundle, as Apple's signer does:
/// a matching `omit` rule excludes the path at once; otherwise the matching rule of highest weight
/// decides (the first one among equals), and a path no rule matches is not sealed.
public struct ResourceRuleMatcher {
    /// What the rules say about one path.
    public enum Verdict: Sendable, Equatable {
        case omitted
        case sealed(optional: Bool)
        case nested
    }

    let rules: [(rule: ResourceRule, expression: NSRegularExpression)]

    /// Compiles `rules`; a pattern that is not a valid regular expression is an error naming it.
    public init(_ rules: [ResourceRule]) throws {
        self.rules = try rules.map { rule in
            do {
                return (rule, try NSRegularExpression(pattern: rule.pattern))
            } catch {
                throw CodeSignError("resource rule '\(rule.pattern)' is not a valid regular expression", location: "rules")
            }
        }
    }

    /// The rule that decides `path` (relative to the bundle), or nil when none matches.
    public func rule(for path: String) -> ResourceRule? {
        let range = NSRange(path.startIndex..<path.endIndex, in: path)
        var best: ResourceRule?
        for (rule, expression) in rules where expression.firstMatch(in: path, range: range) != nil {
            if rule.omit { return rule }
            if best == nil || rule.effectiveWeight > best!.effectiveWeight { best = rule }
        }
        return best
    }

    /// What the rules say about `path`.
    public func verdict(for path: String) -> Verdict {
        guard let rule = rule(for: path), !rule.omit else { return .omitted }
        return rule.nested ? .nested : .sealed(optional: rule.optional)
    }
}

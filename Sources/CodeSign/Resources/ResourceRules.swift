import Foundation
import SystemSupport

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

    let rules: [(rule: ResourceRule, expression: Expression, test: FastTest?)]

    /// Compiles `rules`; a pattern that is not a valid regular expression is an error naming it.
    /// The patterns with a byte test (``fastTests``) are compiled only when a path needs them.
    public init(_ rules: [ResourceRule]) throws {
        self.rules = try rules.map { rule in
            if let test = ResourceRuleMatcher.fastTests[rule.pattern] { return (rule, Expression(rule.pattern), test) }
            do {
                return (rule, Expression(rule.pattern, compiled: try NSRegularExpression(pattern: rule.pattern)), nil)
            } catch {
                throw Diagnostic.codeSign(
                    .malformed, "resource rule '\(rule.pattern)' is not a valid regular expression", location: "rules")
            }
        }
    }

    /// A rule's regular expression, compiled when first needed.
    final class Expression: Sendable {
        let pattern: String
        private let compiled: Locked<NSRegularExpression?>

        init(_ pattern: String, compiled: NSRegularExpression? = nil) {
            self.pattern = pattern
            self.compiled = Locked(compiled)
        }

        /// Whether the expression matches somewhere in `path` (whose whole range is `range`).
        func matches(_ path: String, range: NSRange) -> Bool {
            let expression = compiled.withLock { stored in
                if let stored { return stored }
                // Only the patterns of fastTests come here uncompiled, and those are valid.
                guard let made = try? NSRegularExpression(pattern: pattern) else {
                    preconditionFailure("the standard resource rule '\(pattern)' does not compile")
                }
                stored = made
                return made
            }
            return expression.firstMatch(in: path, range: range) != nil
        }
    }

    /// The rule that decides `path` (relative to the bundle), or nil when none matches.
    public func rule(for path: String) -> ResourceRule? {
        var text = path
        return text.withUTF8 { bytes in
            // Printable ASCII holds no line terminator and nothing case or Unicode rules could treat
            // specially, so there the standard patterns' tests below mean exactly what ICU's do.
            let plain = bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7f }
            var range: NSRange?
            var best: ResourceRule?
            for (rule, expression, test) in rules {
                let matches: Bool
                if plain, let test {
                    matches = test(bytes)
                } else {
                    if range == nil { range = NSRange(path.startIndex..<path.endIndex, in: path) }
                    matches = expression.matches(path, range: range!)
                }
                guard matches else { continue }
                if rule.omit { return rule }
                if best == nil || rule.effectiveWeight > best!.effectiveWeight { best = rule }
            }
            return best
        }
    }

    /// What the rules say about `path`.
    public func verdict(for path: String) -> Verdict {
        guard let rule = rule(for: path), !rule.omit else { return .omitted }
        return rule.nested ? .nested : .sealed(optional: rule.optional)
    }

    /// Whether a pattern matches a path of printable ASCII (its UTF-8 bytes).
    typealias FastTest = @Sendable (UnsafeBufferPointer<UInt8>) -> Bool

    /// The patterns of Xcode's rules (``ResourceRuleGeneration``) as plain byte tests, each exactly
    /// what the regular expression matches in a path of printable ASCII, where `.` matches every
    /// character and `$` only the end. Any other pattern, or path, goes to the regular expression.
    static let fastTests: [String: FastTest] = {
        func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
        func equals(_ text: String) -> FastTest {
            let wanted = bytes(text)
            return { $0.elementsEqual(wanted) }
        }
        func hasPrefix(_ texts: [String]) -> FastTest {
            let wanted = texts.map(bytes)
            return { path in wanted.contains { $0.count <= path.count && path.prefix($0.count).elementsEqual($0) } }
        }
        let lproj = bytes(".lproj/"), locversion = bytes(".lproj/locversion"), plist = bytes("plist"), version = bytes("version")
        let dSYM = bytes(".dSYM"), dSYMFolder = bytes(".dSYM/"), dsStore = bytes("/.DS_Store")
        return [
            "^": { _ in true },
            "^.*": { _ in true },
            "^.*\\.lproj/": { contains($0, lproj) },
            "^.*\\.lproj/locversion.plist$": { path in
                path.count >= 23 && anyBetween(path, from: path.count - 23, locversion, plist)
            },
            "^version.plist$": { path in path.count == 13 && anyBetween(path, from: 0, version, plist) },
            "^Base\\.lproj/": hasPrefix(["Base.lproj/"]),
            ".*\\.dSYM($|/)": { hasSuffix($0, dSYM) || contains($0, dSYMFolder) },
            "^(.*/)?\\.DS_Store$": { path in path.elementsEqual(dsStore.dropFirst()) || hasSuffix(path, dsStore) },
            "^Info\\.plist$": equals("Info.plist"),
            "^PkgInfo$": equals("PkgInfo"),
            "^embedded\\.provisionprofile$": equals("embedded.provisionprofile"),
            "^version\\.plist$": equals("version.plist"),
            "^(Frameworks|SharedFrameworks|PlugIns|Plug-ins|XPCServices|Helpers|MacOS|Library/(Automator|Spotlight|LoginItems))/":
                hasPrefix([
                    "Frameworks/", "SharedFrameworks/", "PlugIns/", "Plug-ins/", "XPCServices/", "Helpers/", "MacOS/", "Library/Automator/",
                    "Library/Spotlight/", "Library/LoginItems/"
                ]),
            "^[^/]+$": { path in !path.isEmpty && !path.contains(UInt8(ascii: "/")) }
        ]
    }()

    private static func hasSuffix(_ path: UnsafeBufferPointer<UInt8>, _ wanted: [UInt8]) -> Bool {
        wanted.count <= path.count && path.suffix(wanted.count).elementsEqual(wanted)
    }

    private static func contains(_ path: UnsafeBufferPointer<UInt8>, _ wanted: [UInt8]) -> Bool {
        guard wanted.count <= path.count else { return false }
        return (0...path.count - wanted.count).contains { start in
            path[start] == wanted[0] && path[start..<start + wanted.count].elementsEqual(wanted)
        }
    }

    /// Whether `path` holds, from `start`, `first`, any one character (an unescaped `.`), then `second`.
    private static func anyBetween(_ path: UnsafeBufferPointer<UInt8>, from start: Int, _ first: [UInt8], _ second: [UInt8]) -> Bool {
        let end = start + first.count + 1 + second.count
        return end <= path.count && path[start..<start + first.count].elementsEqual(first)
            && path[start + first.count + 1..<end].elementsEqual(second)
    }
}

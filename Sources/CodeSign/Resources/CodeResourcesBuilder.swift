import SystemSupport

/// Generates a bundle's `_CodeSignature/CodeResources` from its files and a rule generation, as Xcode's
/// signer does:
///
/// - `files` (version 1): every regular file the `rules` seal, as its SHA-1, or `{hash, optional}`
///   where an optional rule decides; symbolic links are not in version 1.
/// - `files2` (version 2): every file the `rules2` seal, as `hash` (SHA-1) and/or `hash2` (SHA-256)
///   following the CodeDirectories' hash types, with `optional` where it applies; a symbolic link as
///   `{symlink: target}`.
///
/// The bundle's main executable and its own `_CodeSignature/` folder are never sealed; a nested bundle's
/// files (its executable and `_CodeSignature/CodeResources` included) are sealed one by one, as the
/// generations' rules say for iOS. A path a `nested` rule decides is an error: sealing nested code by
/// cdhash is not done here.
public struct CodeResourcesBuilder: Sendable {
    public var generation: ResourceRuleGeneration
    /// The hash types of the CodeDirectories: `.sha1` puts `hash` in `files2`, `.sha256` puts `hash2`.
    public var hashTypes: [HashType]

    public init(generation: ResourceRuleGeneration, hashTypes: [HashType]) {
        self.generation = generation
        self.hashTypes = hashTypes
    }

    /// The seal of `resources` (every entry of the bundle, paths relative to it), leaving out the main
    /// executable `executable` (its path relative to the bundle), or nil for a bundle without one.
    public func build(_ resources: [BundleResource], executable: String?) throws -> CodeResources {
        let unsupported = hashTypes.filter { $0 != .sha1 && $0 != .sha256 }
        guard unsupported.isEmpty, !hashTypes.isEmpty else {
            throw Diagnostic.codeSign(
                .unsupported, "CodeResources seals with SHA-1 and SHA-256 only (asked for \(hashTypes))", location: "CodeResources")
        }
        let rules = generation.rules, rules2 = generation.rules2
        let matcher = try ResourceRuleMatcher(rules), matcher2 = try ResourceRuleMatcher(rules2)
        var files: [String: ResourceSeal] = [:]
        var files2: [String: ResourceSeal] = [:]
        for resource in resources where resource.path != executable && !resource.path.hasPrefix("_CodeSignature/") {
            switch resource.content {
            case .file(let sha1, let sha256):
                if case .sealed(let optional) = try verdict(matcher, resource.path, version: 1) {
                    files[resource.path] = ResourceSeal(hash: sha1, optional: optional)
                }
                if case .sealed(let optional) = try verdict(matcher2, resource.path, version: 2) {
                    files2[resource.path] = ResourceSeal(
                        hash: hashTypes.contains(.sha1) ? sha1 : nil, hash2: hashTypes.contains(.sha256) ? sha256 : nil, optional: optional)
                }
            case .symlink(let target):
                if case .sealed(let optional) = try verdict(matcher2, resource.path, version: 2) {
                    files2[resource.path] = ResourceSeal(optional: optional, symlink: target)
                }
            }
        }
        return CodeResources(
            files: files, files2: files2, rules: rules, rules2: rules2, files2HasBareHashes: generation.writesBareHashesInFiles2)
    }

    private func verdict(_ matcher: ResourceRuleMatcher, _ path: String, version: Int) throws -> ResourceRuleMatcher.Verdict {
        let verdict = matcher.verdict(for: path)
        if verdict == .nested {
            throw Diagnostic.codeSign(
                .unsupported,
                "a nested rule of \(generation) rules\(version == 2 ? "2" : "") decides it; sealing nested code by cdhash is not supported",
                location: path)
        }
        return verdict
    }
}

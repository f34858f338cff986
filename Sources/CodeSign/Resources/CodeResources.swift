import Foundation
import PlistKit
import SystemSupport

/// One sealed file in `_CodeSignature/CodeResources`: its SHA-1 (`hash`) and/or SHA-256 (`hash2`),
/// or for nested code its `cdhash` and `requirement`, or for a symlink its target.
public struct ResourceSeal: Sendable, Equatable {
    public var hash: [UInt8]?
    public var hash2: [UInt8]?
    public var optional: Bool
    public var cdhash: [UInt8]?
    public var requirement: String?
    public var symlink: String?

    public init(
        hash: [UInt8]? = nil, hash2: [UInt8]? = nil, optional: Bool = false, cdhash: [UInt8]? = nil, requirement: String? = nil,
        symlink: String? = nil
    ) {
        self.hash = hash
        self.hash2 = hash2
        self.optional = optional
        self.cdhash = cdhash
        self.requirement = requirement
        self.symlink = symlink
    }
}

/// A resource rule: a regular expression over the path relative to the bundle, and what a match means.
public struct ResourceRule: Sendable, Equatable {
    public var pattern: String
    /// The weight (1 when the plist gives none); the matching rule of highest weight decides.
    public var weight: Double?
    public var omit: Bool
    public var optional: Bool
    public var nested: Bool

    public init(_ pattern: String, weight: Double? = nil, omit: Bool = false, optional: Bool = false, nested: Bool = false) {
        self.pattern = pattern
        self.weight = weight
        self.omit = omit
        self.optional = optional
        self.nested = nested
    }

    /// Whether the plist writes the rule as plain `<true/>`.
    var isPlain: Bool { weight == nil && !omit && !optional && !nested }
    public var effectiveWeight: Double { weight ?? 1 }
}

/// `_CodeSignature/CodeResources`: the seal of a bundle's resources. `files` and `rules` are the
/// version 1 seal (SHA-1), `files2` and `rules2` version 2; the CodeDirectory's special slot 3
/// hashes this file's bytes.
public struct CodeResources: Sendable, Equatable {
    public var files: [String: ResourceSeal]
    public var files2: [String: ResourceSeal]
    public var rules: [ResourceRule]
    public var rules2: [ResourceRule]
    /// Whether `files2` writes a seal holding only a SHA-1 `hash` as bare data, as Xcode 6's signer
    /// did (read: true when any `files2` entry is bare data).
    public var files2HasBareHashes: Bool

    public init(
        files: [String: ResourceSeal], files2: [String: ResourceSeal], rules: [ResourceRule], rules2: [ResourceRule],
        files2HasBareHashes: Bool = false
    ) {
        self.files = files
        self.files2 = files2
        self.rules = rules
        self.rules2 = rules2
        self.files2HasBareHashes = files2HasBareHashes
    }

    /// Parses the plist bytes of a CodeResources file. The plain XML Apple's signers write is read
    /// straight into the seal (``CodeResourcesSink``); any other document is read as a plist tree,
    /// which gives the same seal and names any problem.
    public init(data: Data, limits: PlistLimits = .default) throws {
        try self.init(data: data, limits: limits, keepsVersion1Files: true)
    }

    /// The seal a verifier checks in the bytes of a CodeResources file: what ``init(data:limits:)``
    /// reads (or the same error), except that a version 2 seal (``isVersion2``) may come without
    /// its version 1 ``files``, which is then checked for its shape but not kept: a verifier checks
    /// `files2` then, as codesign does, and thousands of unused seals are not built.
    public init(verifying data: Data, limits: PlistLimits = .default) throws {
        try self.init(data: data, limits: limits, keepsVersion1Files: false)
    }

    private init(data: Data, limits: PlistLimits, keepsVersion1Files: Bool) throws {
        let sink = CodeResourcesSink(size: data.count, keepsVersion1Files: keepsVersion1Files)
        if XMLPlistReader(limits: limits).readPlainXML(data, into: sink), let resources = sink.result {
            self = resources
            return
        }
        try self.init(plist: try CodeResources.plist(data, limits: limits))
    }

    /// Whether the seal is version 2 (`files2` or `rules2`): a verifier checks `files2` under `rules2`
    /// then, and `files` under `rules` for an old seal (as codesign does).
    public var isVersion2: Bool { !files2.isEmpty || !rules2.isEmpty }

    /// The plist in the bytes of a CodeResources file, read with `limits`.
    static func plist(_ data: Data, limits: PlistLimits = .default) throws -> PlistValue {
        do {
            return try PropertyList(data: data, limits: limits).value
        } catch {
            throw Diagnostic.codeSign(.malformed, "CodeResources is not a property list: \(error)")
        }
    }

    /// The seal a CodeResources plist holds.
    init(plist value: PlistValue) throws {
        guard let root = value.dictionaryValue else {
            throw Diagnostic.codeSign(.malformed, "CodeResources is \(value.kindWithArticle), not a dictionary")
        }
        files = try CodeResources.seals(root["files"], key: "files")
        files2 = try CodeResources.seals(root["files2"], key: "files2")
        files2HasBareHashes = root["files2"]?.dictionaryValue?.contains { _, seal in if case .data = seal { true } else { false } } ?? false
        rules = try CodeResources.rules(root["rules"], key: "rules")
        rules2 = try CodeResources.rules(root["rules2"], key: "rules2")
    }

    static func seals(_ value: PlistValue?, key: String) throws -> [String: ResourceSeal] {
        guard let value else { return [:] }
        guard let dictionary = value.dictionaryValue else {
            throw Diagnostic.codeSign(.malformed, "'\(key)' is \(value.kindWithArticle), not a dictionary", location: key)
        }
        var result: [String: ResourceSeal] = [:]
        result.reserveCapacity(dictionary.count)
        for (path, entry) in dictionary {
            switch entry {
            case .data(let hash):
                result[path] = ResourceSeal(hash: Array(hash))
            case .dictionary(let fields):
                func data(_ name: String) throws -> [UInt8]? {
                    guard let field = fields[name] else { return nil }
                    guard case .data(let bytes) = field else {
                        throw Diagnostic.codeSign(.malformed, "'\(name)' is not data", location: "\(key):\(path)")
                    }
                    return Array(bytes)
                }
                result[path] = ResourceSeal(
                    hash: try data("hash"), hash2: try data("hash2"), optional: fields["optional"]?.boolValue ?? false,
                    cdhash: try data("cdhash"), requirement: fields["requirement"]?.stringValue, symlink: fields["symlink"]?.stringValue)
            default:
                throw Diagnostic.codeSign(.malformed, "the seal is \(entry.kindWithArticle)", location: "\(key):\(path)")
            }
        }
        return result
    }

    static func rules(_ value: PlistValue?, key: String) throws -> [ResourceRule] {
        guard let value else { return [] }
        guard let dictionary = value.dictionaryValue else {
            throw Diagnostic.codeSign(.malformed, "'\(key)' is \(value.kindWithArticle), not a dictionary", location: key)
        }
        return try dictionary.map { pattern, entry in
            switch entry {
            case .bool(true):
                return ResourceRule(pattern)
            case .dictionary(let fields):
                var weight: Double?
                switch fields["weight"] {
                case .real(let number): weight = number
                case .integer(let number): weight = Double(Int64(bitPattern: number.bits))
                case nil: weight = nil
                case let other?: throw Diagnostic.codeSign(.malformed, "weight is \(other.kindWithArticle)", location: "\(key):\(pattern)")
                }
                return ResourceRule(
                    pattern, weight: weight, omit: fields["omit"]?.boolValue ?? false, optional: fields["optional"]?.boolValue ?? false,
                    nested: fields["nested"]?.boolValue ?? false)
            default:
                throw Diagnostic.codeSign(.malformed, "the rule is \(entry.kindWithArticle)", location: "\(key):\(pattern)")
            }
        }
    }

    /// The plist value, keys in the order Apple's tools write them (sorted).
    public func plist() -> PlistValue {
        func sealsValue(_ map: [String: ResourceSeal], version1: Bool) -> PlistValue {
            var dictionary = PlistDictionary()
            for path in map.keys.sorted(by: UTF8Order.precedes) {
                let seal = map[path]!
                let plain =
                    version1 && !seal.optional && seal.hash2 == nil && seal.cdhash == nil && seal.symlink == nil && seal.requirement == nil
                if plain, let hash = seal.hash {
                    dictionary.append(path, .data(Data(hash)))
                    continue
                }
                var fields = PlistDictionary()
                if let cdhash = seal.cdhash { fields.append("cdhash", .data(Data(cdhash))) }
                if let hash = seal.hash { fields.append("hash", .data(Data(hash))) }
                if let hash2 = seal.hash2 { fields.append("hash2", .data(Data(hash2))) }
                if seal.optional { fields.append("optional", .bool(true)) }
                if let requirement = seal.requirement { fields.append("requirement", .string(requirement)) }
                if let symlink = seal.symlink { fields.append("symlink", .string(symlink)) }
                dictionary.append(path, .dictionary(fields))
            }
            return .dictionary(dictionary)
        }
        func rulesValue(_ list: [ResourceRule]) -> PlistValue {
            var dictionary = PlistDictionary()
            for rule in list.sorted(by: { UTF8Order.precedes($0.pattern, $1.pattern) }) {
                if rule.isPlain {
                    dictionary.append(rule.pattern, .bool(true))
                    continue
                }
                var fields = PlistDictionary()
                if rule.nested { fields.append("nested", .bool(true)) }
                if rule.omit { fields.append("omit", .bool(true)) }
                if rule.optional { fields.append("optional", .bool(true)) }
                if let weight = rule.weight { fields.append("weight", .real(weight)) }
                dictionary.append(rule.pattern, .dictionary(fields))
            }
            return .dictionary(dictionary)
        }
        var root = PlistDictionary()
        root.append("files", sealsValue(files, version1: true))
        root.append("files2", sealsValue(files2, version1: files2HasBareHashes))
        root.append("rules", rulesValue(rules))
        root.append("rules2", rulesValue(rules2))
        return .dictionary(root)
    }

    /// The file's bytes, as Xcode writes them (an XML plist with tabs).
    public func data() throws -> Data { try XMLPlistWriter().write(plist()) }

}

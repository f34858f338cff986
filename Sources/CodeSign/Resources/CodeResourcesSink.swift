import PlistKit

/// Builds a ``CodeResources`` straight from a plist reader's events, without the plist tree: a
/// CodeResources of thousands of files was parsed into values, walked, and torn down again, which
/// cost more than hashing the files it seals.
///
/// It takes only the shape Apple's signers write: a root dictionary whose `files`/`files2` map each
/// path to data or to a dictionary of `hash`, `hash2`, `cdhash` (data), `optional` (a boolean),
/// `requirement`, `symlink` (strings), and whose `rules`/`rules2` map each pattern to `<true/>` or
/// to a dictionary of `weight` (a number) and `omit`, `optional`, `nested` (booleans); other keys
/// and fields are skipped whatever they hold. Anything else (a value of another kind where one of
/// these is named) makes ``result`` nil, and the caller reads the plist as a tree instead, which
/// names the problem: what it returns is exactly what ``CodeResources/init(plist:)`` returns.
final class CodeResourcesSink: PlistEventSink {
    private enum Frame {
        case root
        /// `files` (false) or `files2` (true).
        case seals(isFiles2: Bool)
        /// A seal, read into ``currentSeal`` (a seal's own fields are never containers).
        case seal
        /// A seal of `files` that is read for its shape but not kept (see ``keepsVersion1Files``).
        case unkeptSeal
        /// `rules` (false) or `rules2` (true).
        case rules(isRules2: Bool)
        /// A rule, read into ``currentRule``.
        case rule
        /// A container whose content is not read.
        case skipped
    }

    private var frames: [Frame] = []
    /// The seal or rule being read, kept out of its frame so setting a field does not copy it.
    private var currentSeal = ResourceSeal()
    private var currentRule = ResourceRule("")
    /// The key the next value belongs to, in the innermost dictionary.
    private var pendingKey = ""
    /// The dictionary key each open frame was the value of (the path of a seal, the pattern of a rule).
    private var frameKeys: [String] = []
    private var files: [String: ResourceSeal] = [:]
    private var files2: [String: ResourceSeal] = [:]
    private var rules: [ResourceRule] = []
    private var rules2: [ResourceRule] = []
    private var files2HasBareHashes = false
    private var isFinished = false
    private var isUnsupported = false
    /// Whether the seals of `files` are kept. When not, each is still read and must have the shape
    /// above, and ``result`` is nil for a document without a version 2 seal (whose `files` is what
    /// a verifier checks): only a seal whose `files` is not checked comes out without it.
    let keepsVersion1Files: Bool

    /// A sink for a document of `size` bytes: room is made for the seals at once (Apple's layout
    /// takes some 300 bytes a file for the two lists), not grown and rehashed as they arrive.
    init(size: Int = 0, keepsVersion1Files: Bool = true) {
        self.keepsVersion1Files = keepsVersion1Files
        if keepsVersion1Files { files.reserveCapacity(size / 320) }
        files2.reserveCapacity(size / 320)
    }

    /// The seal, when the whole document was of the shape this reads (and, when `files` is not
    /// kept, holds a version 2 seal).
    var result: CodeResources? {
        guard isFinished, !isUnsupported else { return nil }
        let resources = CodeResources(
            files: files, files2: files2, rules: rules, rules2: rules2, files2HasBareHashes: files2HasBareHashes)
        return keepsVersion1Files || resources.isVersion2 ? resources : nil
    }

    /// A value (container or scalar) the shape does not allow here.
    private func unsupported() { isUnsupported = true }

    /// What kind of value a scalar event is, for the frame it arrives in.
    private enum Scalar {
        case data(UnsafeRawBufferPointer)
        case bool(Bool)
        case string(UnsafeRawBufferPointer)
        case number(Double)
        case other
    }

    private func scalar(_ value: Scalar) {
        guard !isUnsupported, let frame = frames.last else { return unsupported() }
        switch frame {
        case .root, .skipped:
            // Keys other than the four are not read; a root that is a scalar is not a seal.
            if case .root = frame, ["files", "files2", "rules", "rules2"].contains(pendingKey) { unsupported() }
        case .seals(let isFiles2):
            guard case .data(let bytes) = value else { return unsupported() }
            if isFiles2 {
                files2[pendingKey] = ResourceSeal(hash: Array(bytes))
                files2HasBareHashes = true
            } else if keepsVersion1Files {
                files[pendingKey] = ResourceSeal(hash: Array(bytes))
            }
        case .seal:
            switch (pendingKey, value) {
            case ("hash", .data(let bytes)): currentSeal.hash = Array(bytes)
            case ("hash2", .data(let bytes)): currentSeal.hash2 = Array(bytes)
            case ("cdhash", .data(let bytes)): currentSeal.cdhash = Array(bytes)
            case ("optional", .bool(let flag)): currentSeal.optional = flag
            case ("requirement", .string(let text)): currentSeal.requirement = String(decoding: text, as: UTF8.self)
            case ("symlink", .string(let text)): currentSeal.symlink = String(decoding: text, as: UTF8.self)
            case ("hash", _), ("hash2", _), ("cdhash", _), ("optional", _), ("requirement", _), ("symlink", _): return unsupported()
            default: return
            }
        case .unkeptSeal:
            switch (pendingKey, value) {
            case ("hash", .data), ("hash2", .data), ("cdhash", .data), ("optional", .bool), ("requirement", .string), ("symlink", .string):
                return
            case ("hash", _), ("hash2", _), ("cdhash", _), ("optional", _), ("requirement", _), ("symlink", _): return unsupported()
            default: return
            }
        case .rules(let isRules2):
            guard case .bool(true) = value else { return unsupported() }
            if isRules2 { rules2.append(ResourceRule(pendingKey)) } else { rules.append(ResourceRule(pendingKey)) }
        case .rule:
            switch (pendingKey, value) {
            case ("weight", .number(let weight)): currentRule.weight = weight
            case ("omit", .bool(let flag)): currentRule.omit = flag
            case ("optional", .bool(let flag)): currentRule.optional = flag
            case ("nested", .bool(let flag)): currentRule.nested = flag
            case ("weight", _), ("omit", _), ("optional", _), ("nested", _): return unsupported()
            default: return
            }
        }
    }

    func beginDictionary() {
        guard !isUnsupported else { return }
        guard let frame = frames.last else {
            frames.append(.root)
            frameKeys.append("")
            return
        }
        let next: Frame
        switch frame {
        case .root:
            switch pendingKey {
            case "files": next = .seals(isFiles2: false)
            case "files2": next = .seals(isFiles2: true)
            case "rules": next = .rules(isRules2: false)
            case "rules2": next = .rules(isRules2: true)
            default: next = .skipped
            }
        case .seals(let isFiles2):
            if isFiles2 || keepsVersion1Files {
                currentSeal = ResourceSeal()
                next = .seal
            } else {
                next = .unkeptSeal
            }
        case .rules:
            currentRule = ResourceRule(pendingKey)
            next = .rule
        case .seal, .unkeptSeal, .rule:
            if ["hash", "hash2", "cdhash", "optional", "requirement", "symlink", "weight", "omit", "nested"].contains(pendingKey) {
                return unsupported()
            }
            next = .skipped
        case .skipped: next = .skipped
        }
        frames.append(next)
        frameKeys.append(pendingKey)
    }

    func beginArray() {
        guard !isUnsupported else { return }
        // An array is read nowhere; it is skipped where any value is.
        beginDictionary()
        if !isUnsupported, let last = frames.last {
            if case .skipped = last { return }
            unsupported()
        }
    }

    func endContainer() {
        guard !isUnsupported, let frame = frames.popLast(), let key = frameKeys.popLast() else { return unsupported() }
        switch frame {
        case .seal:
            guard case .seals(let isFiles2) = frames.last else { return unsupported() }
            if isFiles2 { files2[key] = currentSeal } else { files[key] = currentSeal }
        case .rule:
            guard case .rules(let isRules2) = frames.last else { return unsupported() }
            if isRules2 { rules2.append(currentRule) } else { rules.append(currentRule) }
        case .root:
            isFinished = true
        case .unkeptSeal:
            guard case .seals = frames.last else { return unsupported() }
        case .seals, .rules, .skipped:
            break
        }
    }

    func key(_ utf8: UnsafeRawBufferPointer) {
        guard !isUnsupported else { return }
        // The path of a seal of `files` that is not kept is never read: no string is made for it.
        if !keepsVersion1Files, case .seals(isFiles2: false) = frames.last {
            pendingKey = ""
            return
        }
        pendingKey = String(decoding: utf8, as: UTF8.self)
    }

    func string(_ utf8: UnsafeRawBufferPointer) { scalar(.string(utf8)) }
    func integer(_ value: PlistInteger) { scalar(.number(Double(Int64(bitPattern: value.bits)))) }
    func real(_ value: Double) { scalar(.number(value)) }
    func bool(_ value: Bool) { scalar(.bool(value)) }
    func date(_ value: PlistDate) { scalar(.other) }
    func data(_ bytes: UnsafeRawBufferPointer) { scalar(.data(bytes)) }
    func uid(_ value: UInt64) { scalar(.other) }
}

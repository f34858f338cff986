import Foundation
import PlistKit
import SystemSupport

/// The operations behind `adhocbuild plist`: a Linux PlistBuddy and plutil.
///
/// Every function takes paths (`-` for standard input/output), returns what should be
/// printed, and writes files atomically in the format they were read in unless told otherwise.
public enum PlistTool {
    /// How `print` and `get` render values.
    public enum OutputFormat: String, CaseIterable, Sendable {
        case text, xml, json, raw
    }

    public static func render(_ value: PlistValue, as format: OutputFormat, sortKeys: Bool = false) throws -> Data {
        switch format {
        case .text: return Data(PlistTextPrinter(sortKeys: sortKeys).render(value).utf8)
        case .raw: return Data(PlistTextPrinter(sortKeys: sortKeys).renderRaw(value).utf8)
        case .xml: return try PropertyList.encode(value, format: .xml, sortKeys: sortKeys)
        case .json: return try PropertyList.encode(value, format: .json, sortKeys: sortKeys)
        }
    }

    /// The whole file, or the value at `keyPath`, rendered.
    public static func print(
        _ path: String, keyPath: PlistKeyPath = .root, format: OutputFormat = .text,
        sortKeys: Bool = false, limits: PlistLimits = .default
    ) throws -> Data {
        let plist = try PropertyList(contentsOf: path, limits: limits)
        return try inFile(path, only: PlistProblem.self) {
            try render(try plist.value.value(at: keyPath), as: format, sortKeys: sortKeys)
        }
    }

    /// The value at `keyPath`: scalars bare (for shell scripts), containers as `format`.
    public static func get(
        _ path: String, keyPath: PlistKeyPath, format: OutputFormat = .raw, limits: PlistLimits = .default
    ) throws -> Data {
        try print(path, keyPath: keyPath, format: format, limits: limits)
    }

    /// Sets `keyPath` to `text` read as `type` (default: the existing value's type, else string),
    /// creating intermediate dictionaries, and rewrites the file in its own format.
    /// Returns true when the file changed.
    @discardableResult
    public static func set(
        _ path: String, keyPath: PlistKeyPath, text: String?, type: PlistValueType? = nil,
        output: String? = nil, limits: PlistLimits = .default
    ) throws -> Bool {
        var plist = try PropertyList(contentsOf: path, limits: limits)
        try refuseOpenStep(plist, path, output)
        // What is written must read back: a key path that nests deeper than the readers allow is refused.
        let maxDepth = limits.maxDepth
        guard keyPath.components.count < maxDepth else {
            throw Diagnostic.plist(
                .limitExceeded,
                "the key path has \(keyPath.components.count) parts, which would nest deeper than \(maxDepth) levels", file: path)
        }
        do {
            let existingType = plist.value[keyPath].flatMap(PlistValueType.init(of:))
            let newValue = try (type ?? existingType ?? .string).parse(text, limits: limits)
            if plist.value[keyPath] == newValue && output == nil { return false }
            try plist.value.setValue(newValue, at: keyPath)
        } catch let error as Diagnostic where error.is(PlistProblem.self) {
            var located = error
            if located.keyPath == nil { located.keyPath = keyPath.description }
            throw located.inFile(path)
        }
        try plist.write(to: output ?? path)
        return true
    }

    /// Editing an OpenStep file in place would rewrite it as XML; refuse instead.
    private static func refuseOpenStep(_ plist: PropertyList, _ path: String, _ output: String?) throws {
        if plist.format == .openStep && output == nil {
            throw Diagnostic.plist(
                .unrepresentable,
                "is an OpenStep (old-style) plist, which adhocbuild reads but does "
                    + "not rewrite; give -o OUT to write the result as XML", file: path)
        }
    }

    /// Removes `keyPath`; an error when it does not exist.
    public static func delete(_ path: String, keyPath: PlistKeyPath, output: String? = nil, limits: PlistLimits = .default) throws {
        var plist = try PropertyList(contentsOf: path, limits: limits)
        try refuseOpenStep(plist, path, output)
        try inFile(path, only: PlistProblem.self) { try plist.value.removeValue(at: keyPath) }
        try plist.write(to: output ?? path)
    }

    /// Rewrites `path` in `format`, in place unless `output` is given (like `plutil -convert`).
    public static func convert(
        _ path: String, to format: PlistFormat, output: String? = nil,
        sortKeys: Bool = false, limits: PlistLimits = .default
    ) throws {
        try PlistConverter.convert(path, to: format, output: output ?? path, sortKeys: sortKeys, limits: limits)
    }

    /// Merges `overlays` over `base` in order and writes the result to `output` in `format`
    /// (default: the base's). Returns the merge, whose `leaves` explain each value's source.
    @discardableResult
    public static func merge(
        base: String, overlays: [String], output: String, format: PlistFormat? = nil,
        sortKeys: Bool = false, limits: PlistLimits = .default
    ) throws -> PlistMerge {
        let baseList = try PropertyList(contentsOf: base, limits: limits)
        var sources = [PlistMerge.Source(name: base, value: baseList.value)]
        for overlay in overlays {
            sources.append(PlistMerge.Source(name: overlay, value: try PropertyList(contentsOf: overlay, limits: limits).value))
        }
        let merge = PlistMerge(sources)
        try PropertyList(merge.value, format: baseList.format).write(to: output, format: format, sortKeys: sortKeys)
        return merge
    }

    /// The outcome of linting one file.
    public struct LintResult: Sendable {
        public var path: String
        public var format: PlistFormat?
        public var error: Diagnostic?

        public var isValid: Bool { error == nil }
        public var line: String {
            if let error { return error.report }
            return "\(path): OK (\(format?.rawValue ?? "?"))"
        }
    }

    /// Reads each file fully and reports whether it is a valid plist.
    public static func lint(_ paths: [String], limits: PlistLimits = .default) -> [LintResult] {
        paths.map { path in
            do {
                let plist = try PropertyList(contentsOf: path, limits: limits)
                return LintResult(path: path, format: plist.format, error: nil)
            } catch let error as Diagnostic where error.is(PlistProblem.self) {
                return LintResult(path: path, format: nil, error: error.inFile(path))
            } catch let error as Diagnostic {
                return LintResult(path: path, format: nil, error: error)
            } catch {
                return LintResult(path: path, format: nil, error: Diagnostic.io("\(error)", file: path))
            }
        }
    }
}

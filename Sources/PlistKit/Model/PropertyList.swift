import Foundation
import SystemSupport

/// A plist value together with the format it was read in, and the entry points for
/// reading and writing any supported format.
public struct PropertyList: Sendable, Equatable {
    public var value: PlistValue
    /// The format the value was read in, and the one `write` keeps by default.
    public var format: PlistFormat

    public init(_ value: PlistValue, format: PlistFormat = .xml) {
        self.value = value
        self.format = format
    }

    /// Reads `data`, detecting its format from content. `{`/`[` input that is not JSON is
    /// read as OpenStep; when both fail, the error from the reader that got further is thrown.
    /// `<` input that is not XML is read as OpenStep too (`<0a0b>` is OpenStep data), and
    /// when that fails as well, the XML error is thrown.
    public init(data: Data, limits: PlistLimits = .default) throws {
        try limits.checkInputSize(data.count)
        let detected = PlistFormat.detect(data)
        switch detected {
        case .binary: self.init(try BinaryPlistReader(limits: limits).read(data), format: .binary)
        case .xml:
            do {
                self.init(try XMLPlistReader(limits: limits).read(data), format: .xml)
            } catch let xmlError as Diagnostic where xmlError.is(PlistProblem.self) {
                guard xmlError.plistProblem == .malformed,
                    let value = try? OpenStepPlistReader(limits: limits).read(data)
                else { throw xmlError }
                self.init(value, format: .openStep)
            }
        case .openStep: self.init(try OpenStepPlistReader(limits: limits).read(data), format: .openStep)
        case .json:
            do {
                self.init(try JSONPlistReader(limits: limits).read(data), format: .json)
            } catch let jsonError as Diagnostic where jsonError.is(PlistProblem.self) {
                guard jsonError.plistProblem == .malformed else { throw jsonError }
                do {
                    self.init(try OpenStepPlistReader(limits: limits).read(data), format: .openStep)
                } catch let openStepError as Diagnostic where openStepError.is(PlistProblem.self) {
                    throw PropertyList.furthest(jsonError, openStepError)
                }
            }
        }
    }

    /// Reads the file at `path` (`-` is standard input); errors name the file.
    public init(contentsOf path: String, limits: PlistLimits = .default) throws {
        try inFile(path, only: PlistProblem.self) {
            if path != "-", let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int {
                try limits.checkInputSize(size)
            }
        }
        let data = try FileIO.read(path, limit: limits.maxInputSize)
        do {
            try self.init(data: data, limits: limits)
        } catch let error as Diagnostic where error.is(PlistProblem.self) {
            throw error.inFile(path)
        }
    }

    private static func furthest(_ a: Diagnostic, _ b: Diagnostic) -> Diagnostic {
        func rank(_ error: Diagnostic) -> (Int, Int) {
            if let place = error.lineAndColumn { return place }
            return (0, 0)
        }
        return rank(b) > rank(a) ? b : a
    }

    /// Serialises in `format` (default: the format it was read in; OpenStep writes as XML).
    public func data(format: PlistFormat? = nil, sortKeys: Bool = false) throws -> Data {
        try PropertyList.encode(value, format: format ?? formatForWriting, sortKeys: sortKeys)
    }

    private var formatForWriting: PlistFormat { format == .openStep ? .xml : format }

    public static func encode(_ value: PlistValue, format: PlistFormat, sortKeys: Bool = false) throws -> Data {
        switch format {
        case .xml: return try XMLPlistWriter(sortKeys: sortKeys).write(value)
        case .binary: return try BinaryPlistWriter(sortKeys: sortKeys).write(value)
        case .json: return try JSONPlistWriter(sortKeys: sortKeys).write(value)
        case .openStep:
            throw Diagnostic.plist(.unrepresentable, "writing OpenStep plists is not supported; use xml, binary or json")
        }
    }

    /// Writes to `path` atomically (`-` is standard output); errors name the file.
    public func write(to path: String, format: PlistFormat? = nil, sortKeys: Bool = false) throws {
        let bytes = try inFile(path == "-" ? "standard output" : path, only: PlistProblem.self) {
            try data(format: format, sortKeys: sortKeys)
        }
        try FileIO.writeAtomically(bytes, to: path)
    }
}

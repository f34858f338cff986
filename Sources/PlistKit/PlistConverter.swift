import Foundation
import SystemSupport

/// Converts plist files between formats, streaming where it can.
///
/// XML and binary input convert to XML or binary without building the value in memory:
/// the reader's events go straight into the writer, and XML output is written to the file
/// in chunks. Other combinations (JSON, OpenStep, sorted keys) go through `PlistValue`.
/// Output is always written atomically.
public enum PlistConverter {
    /// Converts the file at `input` (`-`: standard input) to `format` at `output` (`-`: standard output).
    public static func convert(
        _ input: String, to format: PlistFormat, output: String, sortKeys: Bool = false,
        limits: PlistLimits = .default
    ) throws {
        _ = try convertCountingSplits(input, to: format, output: output, sortKeys: sortKeys, limits: limits)
    }

    /// `convert`, returning how many containers were written on several threads (binary to XML
    /// only; 0 when the file went through one thread), for tests.
    static func convertCountingSplits(
        _ input: String, to format: PlistFormat, output: String, sortKeys: Bool = false,
        limits: PlistLimits = .default
    ) throws -> Int {
        guard format != .openStep else {
            throw Diagnostic.plist(.unrepresentable, "writing OpenStep plists is not supported; use xml, binary or json")
        }
        var data: Data? = try FileIO.read(input, limit: limits.maxInputSize)
        let source = PlistFormat.detect(data!)
        let streams = !sortKeys && (source == .xml || source == .binary) && (format == .xml || format == .binary)
        func throughValue() throws {
            let value = try inFile(input, only: PlistProblem.self) { try PropertyList(data: data!, limits: limits).value }
            data = nil
            try PropertyList(value, format: format).write(to: output, format: format, sortKeys: sortKeys)
        }
        guard streams else {
            try throughValue()
            return 0
        }
        do {
            return try stream(&data, from: input, source: source, to: format, output: output, limits: limits)
        } catch let error as Diagnostic
            where source == .xml && error.plistProblem == .malformed
            && (try? OpenStepPlistReader(limits: limits).read(data!)) != nil
        {
            try throughValue()  // `<0a0b>` is OpenStep data, not broken XML (see `PropertyList(data:)`)
            return 0
        }
    }

    /// Converts XML or binary to XML or binary without building the value; returns how many
    /// containers were written on several threads.
    private static func stream(
        _ data: inout Data?, from input: String, source: PlistFormat, to format: PlistFormat,
        output: String, limits: PlistLimits
    ) throws -> Int {
        func namingTheFile<T>(_ body: () throws -> T) throws -> T {
            do { return try body() } catch let error as Diagnostic where error.is(PlistProblem.self) {
                throw error.keyPath == nil || error.plistProblem != .unrepresentable
                    ? error.inFile(input) : error.inFile(output == "-" ? "standard output" : output)
            }
        }
        func read(into sink: PlistEventSink) throws {
            try namingTheFile {
                if source == .xml {
                    try XMLPlistReader(limits: limits).read(data!, into: sink)
                } else {
                    try BinaryPlistReader(limits: limits).read(data!, into: sink)
                }
            }
        }
        if format == .binary {
            let size = data!.count
            let writer: BinaryPlistStreamWriter
            if source == .xml {
                // Plain XML is read without libxml2; the writer only writes in `finish()`, so one
                // that saw part of a document the fast reader declined can be dropped.
                writer = try namingTheFile {
                    try XMLPlistReader(limits: limits).read(data!) { BinaryPlistStreamWriter(expectedInputSize: size) }
                }
            } else {
                writer = BinaryPlistStreamWriter(expectedInputSize: size)
                try read(into: writer)
            }
            data = nil  // the input is no longer needed while the output is laid out
            try FileIO.writeAtomically(writer.finish(), to: output)
        } else if output == "-" {
            let writer = XMLPlistStreamWriter(output: ByteOutput())
            try read(into: writer)
            try FileIO.writeAtomically(try writer.finish(), to: output)
        } else {
            let threads = source == .binary && data!.count >= BinaryPlistXMLSplitter.minimumInputSize ? Processors.usable : 1
            var splits = 0
            if threads > 1,
                (try? writeXML(to: output, { splits = try BinaryPlistReader(limits: limits).read(data!, intoXML: $0, threads: threads) }))
                    != nil
            {
                return splits
            }
            // One thread, or again on one thread: any problem is reported in document order.
            try writeXML(to: output) { try read(into: $0) }
        }
        return 0
    }

    /// Writes XML to the file at `output` through `body`, atomically.
    private static func writeXML(to output: String, _ body: (XMLPlistStreamWriter) throws -> Void) throws {
        let file = try AtomicFileWriter(path: output)
        do {
            let writer = XMLPlistStreamWriter(
                output: ByteOutput(fileDescriptor: file.fileDescriptor, startsWriteback: file.flushesOnCommit))
            try body(writer)
            _ = try writer.finish()
            try file.commit()
        } catch {
            file.abort()
            if let error = error as? Diagnostic, error.is(FileProblem.self) { throw error.inFile(output) }
            throw error
        }
    }
}

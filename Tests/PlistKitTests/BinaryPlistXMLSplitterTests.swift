import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import PlistKit

/// Binary -> XML with large containers near the top written on several threads
/// (`BinaryPlistXMLSplitter`) gives the bytes of the one-thread walk; on any problem it fails,
/// and the converter then reports the one-thread walk's error, first in document order.
@Suite struct BinaryPlistXMLSplitterTests {
    /// XML from the one-thread walk, or its error.
    static func oneThread(_ data: Data, limits: PlistLimits = .default) -> Result<[UInt8], Diagnostic> {
        let writer = XMLPlistStreamWriter(output: ByteOutput())
        do {
            try BinaryPlistReader(limits: limits).read(data, into: writer)
            return .success(try writer.finish())
        } catch {
            return .failure(error as! Diagnostic)
        }
    }

    /// XML from the split walk on `threads` threads, and how many containers it split.
    static func split(_ data: Data, threads: Int, limits: PlistLimits = .default) throws -> (xml: [UInt8], splits: Int) {
        let writer = XMLPlistStreamWriter(output: ByteOutput())
        let splits = try BinaryPlistReader(limits: limits).read(data, intoXML: writer, threads: threads)
        return (try writer.finish(), splits)
    }

    static func binary(_ value: PlistValue) throws -> Data { try PropertyList.encode(value, format: .binary) }

    static func record(_ index: Int) -> PlistValue {
        var record = PlistDictionary()
        record.append("name", .string("record \(index) ünïcode 東京"))
        record.append("size", .integer(PlistInteger(Int64(index) * 977)))
        record.append("ratio", .real(Double(index) / 7))
        record.append("on", .bool(index % 3 == 0))
        record.append("hash", .data(Data(repeating: UInt8(index & 0xFF), count: 20)))
        record.append("when", .date(PlistDate(secondsSinceReferenceDate: Double(index) * 86_400.5)))
        record.append("tags", .array((0..<(index % 4)).map { .string("tag\($0)") }))
        record.append("empty", .dictionary(PlistDictionary()))
        record.append("none", .array([]))
        return .dictionary(record)
    }

    /// Shapes with their expected number of split containers: the top object, its children and
    /// their children are split from 128 children up; deeper ones and smaller ones are not.
    static func shapes() throws -> [(String, Data, Int)] {
        var files: [(String, Data, Int)] = []
        files.append(("array of 1,000 records", try binary(.array((0..<1_000).map(record))), 1))
        var keyed = PlistDictionary()
        for index in 0..<300 { keyed.append("kéy \(index) 🚀", record(index)) }
        keyed.append("deep", .array([.array([.array([.array((0..<200).map { .integer(PlistInteger(Int64($0))) })])])]))
        keyed.append("second", .array((0..<150).map { .string("item \($0) <&>") }))
        files.append(("dictionary of 300 records and deeper arrays", try binary(.dictionary(keyed)), 1))
        files.append(
            (
                "two large arrays under the top",
                try binary(["first": .array((0..<400).map(record)), "then": 1, "second": .array((0..<129).map(record))]), 2
            ))
        var mixed = PlistDictionary()
        for index in 0..<300 { mixed.append("key \(index)", record(index)) }
        let numbers = PlistValue.array((0..<200).map { .integer(PlistInteger(Int64($0))) })
        files.append(
            (
                "splits of dictionaries and arrays at depths 1 and 2, one after another",
                try binary(
                    [
                        "a": .dictionary(mixed), "b": numbers, "d": [.array((0..<300).map(record))],
                        "e": [[.array((0..<300).map(record))]]
                    ]), 3
            ))
        var deep = PlistValue.string("bottom")
        for _ in 0..<505 { deep = [deep] }
        files.append(("a child 508 levels deep in a split container", try binary([.array((0..<200).map(record) + [deep])]), 1))
        files.append(("exactly 128 children", try binary(.array((0..<128).map(record))), 1))
        files.append(("127 children", try binary(.array((0..<127).map(record))), 0))
        files.append(
            ("a large container four levels down", try binary(.array([.array([.array([.array((0..<500).map(record))])])])), 0))
        return files
    }

    @Test(arguments: [1, 2, 4]) func theSplitWalkWritesTheBytesOfTheOneThreadWalk(threads: Int) throws {
        for (name, data, expectedSplits) in try Self.shapes() {
            let (xml, splits) = try Self.split(data, threads: threads)
            #expect(splits == expectedSplits, "\(name)")
            let same = try xml == Self.oneThread(data).get()  // compared here: a failure would print both files
            #expect(same, "\(name)")
        }
    }

    /// `data` with the marker of the string object holding `text` (unique in the file) changed to
    /// one no plist has.
    static func breakingString(_ text: String, in data: Data) throws -> Data {
        let needle = [0x50 | UInt8(text.utf8.count)] + Array(text.utf8)
        let bytes = Array(data)
        let found = try #require(
            (0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) })
        var broken = bytes
        broken[found] = 0x70 | UInt8(text.utf8.count)
        return Data(broken)
    }

    /// Converts `data` (written to a file) to XML and expects the one-thread walk's error, named
    /// in the input file, with no output file left behind.
    static func expectOneThreadError(
        _ data: Data, limits: PlistLimits = .default, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        guard case .failure(let expected) = oneThread(data, limits: limits) else {
            Issue.record("the one-thread walk accepted the file", sourceLocation: sourceLocation)
            return
        }
        try withTemporaryFolder { folder in
            let input = try folder.write("input.plist", data)
            let output = folder.url.appendingPathComponent("output.plist").path
            #expect(throws: expected.inFile(input), sourceLocation: sourceLocation) {
                try PlistConverter.convert(input, to: .xml, output: output, limits: limits)
            }
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["input.plist"],
                sourceLocation: sourceLocation)
        }
    }

    @Test func brokenObjectsInTwoChunksAreReportedFirstInDocumentOrder() throws {
        let items = PlistValue.array((0..<2_000).map { .string("item-\($0)") })
        let data = try Self.breakingString("item-1900", in: try Self.breakingString("item-150", in: try Self.binary(items)))
        expectDiagnostic(PlistProblem.self) { try Self.split(data, threads: 2) }
        try Self.expectOneThreadError(data)
        guard case .failure(let error) = Self.oneThread(data) else { return }
        #expect(error.description.contains("unknown marker 0x78"), "\(error)")
    }

    @Test func aCycleThroughTheSplitContainerIsACycle() throws {
        // The top array's 200 items are the integers 1 to 50, but item 150 is the array itself.
        var builder = BinaryPlistBuilder()
        builder.add([0xAF, 0x10, 200] + (0..<200).map { $0 == 150 ? 0 : UInt8(1 + $0 % 50) })
        for value in 1...50 { builder.add([0x10, UInt8(value)]) }
        let data = builder.build()
        expectDiagnostic(PlistProblem.self) { try Self.split(data, threads: 2) }
        try Self.expectOneThreadError(data)
    }

    @Test func aStringXMLCannotCarryIsNamedByItsKeyPath() throws {
        var records = (0..<300).map(Self.record)
        records[211] = ["name": "bell \u{7}"]
        let data = try Self.binary(["records": .array(records)])
        expectDiagnostic(PlistProblem.self) { try Self.split(data, threads: 2) }
        try withTemporaryFolder { folder in
            let input = try folder.write("input.plist", data)
            let output = folder.url.appendingPathComponent("output.plist").path
            #expect(
                throws: Diagnostic.plist(
                    .unrepresentable, "the string holds U+0007, which XML cannot carry; write binary instead",
                    keyPath: "records:211:name", file: output)
            ) {
                try PlistConverter.convert(input, to: .xml, output: output)
            }
        }
    }

    @Test func theValueLimitCountsTheValuesOfEveryChunk() throws {
        // 1,001 values: each chunk is far below the limit, all of them together above it.
        let data = try Self.binary(.array((0..<1_000).map { .integer(PlistInteger(Int64($0))) }))
        let limits = PlistLimits(maxValues: 1_000)
        expectDiagnostic(PlistProblem.self) { try Self.split(data, threads: 2, limits: limits) }
        try Self.expectOneThreadError(data, limits: limits)
        #expect(try Self.split(data, threads: 2, limits: PlistLimits(maxValues: 1_001)).splits == 1)
    }

    @Test func aChunkPastItsMemoryBoundFailsTheSplitWalk() throws {
        let data = try Self.binary(.array((0..<400).map(Self.record)))
        let writer = XMLPlistStreamWriter(output: ByteOutput())
        expectDiagnostic(PlistProblem.self) {
            try BinaryPlistReader().read(data, intoXML: writer, threads: 2, chunkByteLimit: 4_096)
        }
    }

    /// Whatever byte is damaged, the split walk either writes exactly what the one-thread walk
    /// writes or fails (and the converter then reports the one-thread walk's error): it never
    /// succeeds with other bytes.
    @Test func aDamagedFileIsNeverWrittenDifferentlyOnThreads() throws {
        let data = try Self.binary(["records": .array((0..<400).map(Self.record)), "more": .array((0..<150).map(Self.record))])
        var generator = SeededGenerator(seed: 14)
        var splitFailures = 0
        for round in 0..<300 {
            var bytes = Array(data)
            // Two thirds of the damage in the object area, the rest in the offset table and trailer.
            let objectArea = bytes.count * 2 / 3
            let position =
                round % 3 == 2
                ? objectArea + Int(generator.next() % UInt64(bytes.count - objectArea))
                : 8 + Int(generator.next() % UInt64(objectArea - 8))
            bytes[position] ^= UInt8(1 + generator.next() % 255)
            let damaged = Data(bytes)
            let oneThread = Self.oneThread(damaged)
            do {
                let (xml, _) = try Self.split(damaged, threads: 2)
                let same = oneThread == .success(xml)  // compared here: a failure would print both files
                #expect(same, "damaged byte \(position): written on threads, but one thread says \(oneThread.map { _ in "other bytes" })")
            } catch {
                splitFailures += 1
            }
        }
        // Most damage is caught; some (a changed digit in a string, say) is still a valid file.
        #expect(splitFailures > 50)
    }

    /// A write that fails while chunks are being written is thrown, and no thread is left waiting.
    @Test func aFailedWriteDuringTheSplitIsThrown() throws {
        let data = try Self.binary(.array((0..<3_000).map(Self.record)))
        let fd = open("/dev/full", O_WRONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        let writer = XMLPlistStreamWriter(output: ByteOutput(fileDescriptor: fd, startsWriteback: false))
        expectDiagnostic(FileProblem.self) {
            _ = try BinaryPlistReader().read(data, intoXML: writer, threads: 2)
            _ = try writer.finish()
        }
    }

    @Test func theConverterWritesTheOneThreadBytesForALargeFile() throws {
        let data = try Self.binary(["records": .array((0..<12_000).map(Self.record)), "count": 12_000])
        try #require(data.count >= BinaryPlistXMLSplitter.minimumInputSize)
        try withTemporaryFolder { folder in
            let input = try folder.write("input.plist", data)
            let output = folder.url.appendingPathComponent("output.plist").path
            let splits = try PlistConverter.convertCountingSplits(input, to: .xml, output: output)
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: output))) == (try Self.oneThread(data).get()))
            // Written on threads, not by the one-thread walk after a failed attempt.
            #expect(splits == (Processors.usable > 1 ? 1 : 0))
        }
    }
}

import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// The streaming conversion paths give the same bytes as going through `PlistValue`, and
/// fail without touching the target.
@Suite struct PlistConverterTests {
    static let sample: PlistValue = [
        "name": "ShoutOut & <Friends>", "build": 42, "big": .integer(PlistInteger(UInt64.max)), "neg": -5,
        "ratio": 0.1, "on": true, "when": .date(PlistDate(iso8601: "2011-05-04T12:30:00Z")!),
        "blob": .data(Data((0..<200).map { UInt8($0) })), "unicode": "日本 🚀 é",
        "list": [1, "two", [], .dictionary(PlistDictionary()), ["deep": ["deeper": "x"]]],
        "shared": ["same", "same", "same"], "cr": "line\r\nbreak"
    ]

    func roundTrip(_ value: PlistValue, from source: PlistFormat, to target: PlistFormat) throws {
        try withTemporaryFolder { folder in
            let input = try folder.write("in.plist", try PropertyList.encode(value, format: source))
            let output = folder.path("out.plist")
            try PlistConverter.convert(input, to: target, output: output)
            let streamed = try Data(contentsOf: URL(fileURLWithPath: output))
            // JSON holds dates and data as strings, so compare with what was actually read.
            let expected = source == .json ? try PropertyList(contentsOf: input).value : value
            #expect(streamed == (try PropertyList.encode(expected, format: target)), "\(source) -> \(target)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["in.plist", "out.plist"])
        }
    }

    @Test(arguments: [
        (PlistFormat.xml, PlistFormat.binary), (.binary, .xml), (.xml, .xml), (.binary, .binary),
        (.binary, .json), (.json, .binary)
    ])
    func streamingConversionMatchesTheValueWriters(from source: PlistFormat, to target: PlistFormat) throws {
        try roundTrip(Self.sample, from: source, to: target)
    }

    @Test(Fixtures.enabled) func realFilesConvertTheSameBothWays() throws {
        for folder in ["plist-binary", "plist-xml"] {
            for file in Fixtures.files(in: folder) {
                let value = try PropertyList(contentsOf: file.path).value
                try roundTrip(value, from: .binary, to: .xml)
                try roundTrip(value, from: .xml, to: .binary)
            }
        }
    }

    @Test func aFailedConversionLeavesTheTargetAndNoTemporaryFile() throws {
        try withTemporaryFolder { folder in
            let bad = try folder.write("bad.plist", "<plist><dict><key>a</key><integer>1</integer><key>a</key><true/></dict></plist>")
            let target = try folder.write("target.plist", "old contents")
            #expect(throws: Diagnostic.plist(.malformed, "key 'a' appears twice in the same <dict>", at: .line(1, column: 58), file: bad)) {
                try PlistConverter.convert(bad, to: .binary, output: target)
            }
            let controls = try folder.write("controls.plist", try PropertyList.encode(["k": ["x\u{1}"]], format: .binary))
            #expect(
                throws: Diagnostic.plist(
                    .unrepresentable, "the string holds U+0001, which XML cannot carry; write binary instead",
                    keyPath: "k:0", file: target)
            ) {
                try PlistConverter.convert(controls, to: .xml, output: target)
            }
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "old contents")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
                    == ["bad.plist", "controls.plist", "target.plist"])
        }
    }

    @Test func streamingXMLOutputLargerThanTheFlushSizeIsComplete() throws {
        let big = PlistValue.array((0..<40_000).map { .string("entry number \($0) with some text to make it longer") })
        try roundTrip(big, from: .binary, to: .xml)
    }

    @Test func inPlaceConversionReplacesTheFile() throws {
        try withTemporaryFolder { folder in
            let path = try folder.write("Info.plist", try PropertyList.encode(Self.sample, format: .xml))
            try PlistConverter.convert(path, to: .binary, output: path)
            #expect(try PropertyList(contentsOf: path) == PropertyList(Self.sample, format: .binary))
        }
    }
}

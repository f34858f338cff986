import Foundation
import TestSupport
import Testing

@testable import PlistKit

/// The binary reader's up-front key check (`BinaryPlistKeyIndex`) is a fast path only: binary ->
/// XML gives the same bytes, and the same error, with it and without it (key by key, as before),
/// on valid, hostile and real files.
@Suite struct BinaryKeyIndexTests {
    /// XML from the streaming reader, or the error's description.
    static func transcode(_ data: Data, upFront: Bool) -> String {
        var reader = BinaryPlistReader()
        reader.checksKeysUpFront = upFront
        let writer = XMLPlistStreamWriter(output: ByteOutput())
        do {
            try reader.read(data, into: writer)
            return "ok\n" + String(decoding: try writer.finish(), as: UTF8.self)
        } catch {
            return "error: \(error)"
        }
    }

    static func expectSame(_ data: Data, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let fast = transcode(data, upFront: true)
        #expect(fast == transcode(data, upFront: false), "\(name)", sourceLocation: sourceLocation)
        // Where the file reads, the value path writes the same XML too.
        if fast.hasPrefix("ok\n"), let value = try? BinaryPlistReader().read(data),
            let xml = try? PropertyList.encode(value, format: .xml)
        {
            #expect(fast == "ok\n" + String(decoding: xml, as: UTF8.self), "\(name)", sourceLocation: sourceLocation)
        }
    }

    static func make(_ configure: (inout BinaryPlistBuilder) -> Void) -> Data {
        var builder = BinaryPlistBuilder()
        configure(&builder)
        return builder.build()
    }

    static func utf16(_ text: String) -> [UInt8] {
        let units = Array(text.utf16)
        return [0x60 | UInt8(units.count)] + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    typealias B = BinaryPlistBuilder

    static let hostile: [(String, Data)] = [
        (
            "one key object used twice",
            make {
                $0.add(B.dict([1, 1], [2, 2])); $0.add(B.ascii("a")); $0.add([0x09])
            }
        ),
        (
            "two objects with the same text",
            make {
                $0.add(B.dict([1, 2], [3, 3])); $0.add(B.ascii("key")); $0.add(B.ascii("key")); $0.add([0x08])
            }
        ),
        (
            "an ASCII key and a UTF-16 key with the same text",
            make {
                $0.add(B.dict([1, 2], [3, 3])); $0.add(B.ascii("key")); $0.add(utf16("key")); $0.add([0x08])
            }
        ),
        (
            "UTF-16 keys with the same text",
            make {
                $0.add(B.dict([1, 2], [3, 3])); $0.add(utf16("é🚀")); $0.add(utf16("é🚀")); $0.add([0x08])
            }
        ),
        (
            "distinct UTF-16 keys",
            make {
                $0.add(B.dict([1, 2], [3, 3])); $0.add(utf16("é")); $0.add(utf16("ü")); $0.add([0x08])
            }
        ),
        (
            "empty keys",
            make {
                $0.add(B.dict([1, 2], [3, 3])); $0.add(B.ascii("")); $0.add(B.ascii("")); $0.add([0x08])
            }
        ),
        (
            "an integer key",
            make {
                $0.add(B.dict([1], [1])); $0.add([0x10, 0x05])
            }
        ),
        (
            "a broken value before a non-string key",
            make {
                $0.add(B.dict([1, 2], [3, 1])); $0.add(B.ascii("a")); $0.add([0x10, 0x05]); $0.add([0x00])
            }
        ),
        (
            "a broken value before a repeated key",
            make {
                $0.add(B.dict([1, 1], [2, 3])); $0.add(B.ascii("a")); $0.add([0x00]); $0.add([0x09])
            }
        ),
        (
            "a key reference out of range",
            make {
                $0.add(B.dict([1, 9], [2, 2])); $0.add(B.ascii("a")); $0.add([0x09])
            }
        ),
        (
            "a key with a bad marker",
            make {
                $0.add(B.dict([1], [2])); $0.add([0x7F]); $0.add([0x09])
            }
        ),
        (
            "a key with an unpaired surrogate",
            make {
                $0.add(B.dict([1], [2])); $0.add([0x61, 0xD8, 0x00]); $0.add([0x09])
            }
        ),
        (
            "an ASCII key holding 0x80",
            make {
                $0.add(B.dict([1], [2])); $0.add([0x51, 0x80]); $0.add([0x09])
            }
        ),
        (
            "a key XML cannot carry",
            make {
                $0.add(B.dict([1], [2])); $0.add(B.ascii("a\u{1}")); $0.add([0x09])
            }
        ),
        (
            "a key that needs escaping",
            make {
                $0.add(B.dict([1], [2])); $0.add(B.ascii("<&>\r")); $0.add([0x09])
            }
        ),
        (
            "the parent's key inside the child, then again in the parent",
            make {
                $0.add(B.dict([1, 1], [2, 3])); $0.add(B.ascii("a")); $0.add(B.dict([1], [3])); $0.add([0x09])
            }
        ),
        (
            "the parent's key inside the child only",
            make {
                $0.add(B.dict([1, 4], [2, 3])); $0.add(B.ascii("a")); $0.add(B.dict([1], [3])); $0.add([0x09]); $0.add(B.ascii("b"))
            }
        ),
        (
            "a key object that overlaps the next object",
            make {
                $0.add(B.dict([1], [2])); $0.add(B.ascii("abc")); $0.add([0x09]); $0.offsetOverrides[2] = 8 + 3 + 2
            }
        ),
        (
            "keys in a non-ascending layout",
            make {
                $0.add(B.dict([1, 2], [3, 3])); $0.add(B.ascii("x")); $0.add(B.ascii("y")); $0.add([0x09])
                $0.offsetOverrides = [0: 15, 3: 8]
            }
        ),
        (
            "a shared dictionary",
            make {
                $0.add(B.array([1, 1, 1])); $0.add(B.dict([2, 3], [4, 4])); $0.add(B.ascii("p")); $0.add(B.ascii("q")); $0.add([0x09])
            }
        )
    ]

    @Test func hostileDictionariesGiveTheSameOutputAndErrorsBothWays() {
        for (name, data) in Self.hostile { Self.expectSame(data, name) }
    }

    /// Dictionaries of many keys, so the index rehashes and its stamps grow, with a repeat at each position.
    @Test func largeDictionariesWithARepeatAnywhere() {
        let count = 200
        for repeatAt in [nil, 1, 63, 64, 65, 199] as [Int?] {
            var builder = BinaryPlistBuilder()
            builder.offsetSize = 2
            builder.refSize = 2
            var dict: [UInt8] = [0xDF, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)]
            for index in 0..<count {
                let key = index == repeatAt ? 1 : 1 + index
                dict += [UInt8(key >> 8), UInt8(key & 0xFF)]
            }
            for _ in 0..<count { dict += [UInt8((count + 1) >> 8), UInt8((count + 1) & 0xFF)] }
            builder.add(dict)
            for index in 0..<count { builder.add(B.ascii("k\(index)")) }
            builder.add([0x09])
            Self.expectSame(builder.build(), "repeat at \(String(describing: repeatAt))")
        }
    }

    /// Random values as our writer lays them out (one object per distinct key; the hostile cases
    /// cover writers that do not unique).
    @Test func randomValues() throws {
        var generator = SeededGenerator(seed: 7)
        let words = ["a", "b", "name", "Ωmega", "", "emoji 🚀", "x<y", "k\r", "long key number one", "b"]
        func value(_ depth: Int) -> PlistValue {
            switch Int.random(in: 0..<(depth > 3 ? 3 : 6), using: &generator) {
            case 0: return .string(words.randomElement(using: &generator)!)
            case 1: return .integer(PlistInteger(Int64.random(in: -1000...1000, using: &generator)))
            case 2: return .bool(Bool.random(using: &generator))
            case 3: return .array((0..<Int.random(in: 0..<5, using: &generator)).map { _ in value(depth + 1) })
            default:
                var dict = PlistDictionary()
                for _ in 0..<Int.random(in: 0..<20, using: &generator) {
                    let key = words.randomElement(using: &generator)! + String(Int.random(in: 0..<8, using: &generator))
                    if !dict.contains(key) { dict.append(key, value(depth + 1)) }
                }
                return .dictionary(dict)
            }
        }
        for round in 0..<60 {
            let data = try BinaryPlistWriter().write(value(0))
            Self.expectSame(data, "round \(round)")
        }
    }

    @Test(Fixtures.enabled) func realFiles() throws {
        for file in Fixtures.files(in: "plist-binary") {
            Self.expectSame(try Data(contentsOf: file), file.lastPathComponent)
        }
        for file in Fixtures.files(in: "plist-xml") {
            let value = try PropertyList(contentsOf: file.path).value
            Self.expectSame(try BinaryPlistWriter().write(value), file.lastPathComponent)
        }
    }

    @Test func oracleCases() throws {
        let python = try #require(ProcessResult.which("python3"), "python3 is needed for the plistlib oracle")
        try withTemporaryFolder { folder in
            let result = try ProcessResult.run(
                python, [OracleDifferentialTests.oracle, "generate", folder.url.path, String(OracleDifferentialTests.caseCount), "4242"])
            try #require(result.status == 0, "oracle generate failed: \(result.stderrText)")
            for index in 0..<OracleDifferentialTests.caseCount {
                Self.expectSame(try Data(contentsOf: URL(fileURLWithPath: folder.path("case_\(index).bin"))), "case \(index)")
            }
        }
    }
}

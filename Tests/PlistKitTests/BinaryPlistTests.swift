import Foundation
import PlistKit
import Testing

@Suite struct BinaryPlistTests {
    func roundTrip(_ value: PlistValue) throws -> PlistValue {
        try BinaryPlistReader().read(try BinaryPlistWriter().write(value))
    }

    @Test func roundTripsEveryValueKind() throws {
        let value: PlistValue = [
            "string": "ascii", "unicode": "héllo 🚀 日本", "empty": "", "int": 7, "negative": -7,
            "big": .integer(PlistInteger(UInt64.max)), "min": .integer(PlistInteger(Int64.min)), "real": 0.1,
            "nan": .real(.nan), "bool": true, "date": .date(PlistDate(secondsSinceReferenceDate: 123.456)),
            "data": .data(Data([1, 2, 3])), "uid": .uid(300), "array": [1, "two", [3]], "dict": ["k": false]
        ]
        #expect(try roundTrip(value) == value)
    }

    @Test func choosesTheSmallestIntegerEncodingAndSixteenBytesAboveInt64Max() throws {
        func encodedSize(_ integer: PlistInteger) throws -> Int {
            let data = try BinaryPlistWriter().write(.integer(integer))
            return data.count - 8 - 1 - 32  // header, one-byte offset table, trailer
        }
        #expect(try encodedSize(PlistInteger(255)) == 2)
        #expect(try encodedSize(PlistInteger(256)) == 3)
        #expect(try encodedSize(PlistInteger(70_000)) == 5)
        #expect(try encodedSize(PlistInteger(Int64(1) << 40)) == 9)
        #expect(try encodedSize(PlistInteger(-1)) == 9)
        #expect(try encodedSize(PlistInteger(UInt64(Int64.max) + 1)) == 17)
        let data = try BinaryPlistWriter().write(.integer(PlistInteger(UInt64.max)))
        #expect(Array(data[8..<25]) == [0x14] + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xFF, count: 8))
    }

    @Test func writesNonASCIIStringsAsUTF16BigEndian() throws {
        let data = try BinaryPlistWriter().write("é🚀")
        #expect(Array(data[8..<15]) == [0x63, 0x00, 0xE9, 0xD8, 0x3D, 0xDE, 0x80])
    }

    @Test func uniquesEqualScalarsButKeepsIntegersAndRealsApart() throws {
        let value: PlistValue = ["a": "same", "b": "same", "c": 1, "d": 1.0, "e": "same"]
        let data = try BinaryPlistWriter().write(value)
        let objectCount = data[data.count - 24..<data.count - 16].reduce(0) { $0 << 8 | Int($1) }
        // dict, 5 keys, "same", 1, 1.0
        #expect(objectCount == 1 + 5 + 1 + 1 + 1)
        #expect(try BinaryPlistReader().read(data) == value)
    }

    @Test func picksOffsetAndReferenceSizesBySize() throws {
        func trailerSizes(_ value: PlistValue) throws -> (Int, Int) {
            let data = try BinaryPlistWriter().write(value)
            return (Int(data[data.count - 26]), Int(data[data.count - 25]))
        }
        #expect(try trailerSizes(["small"]) == (1, 1))
        #expect(try trailerSizes(.array((0..<300).map { .integer(PlistInteger($0 + 1000)) })) == (2, 2))
        #expect(try trailerSizes(.data(Data(count: 70_000))) == (4, 1))
    }

    @Test func usesExtendedCountsFromFifteenItems() throws {
        let value = PlistValue.array((0..<15).map { _ in true })
        let data = try BinaryPlistWriter().write(value)
        #expect(Array(data[8..<11]) == [0xAF, 0x10, 0x0F])
        #expect(try BinaryPlistReader().read(data) == value)
    }

    @Test func readsSetsAsArraysAndFourByteReals() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0xC1, 1])
        builder.add([0x22] + [0x3F, 0xC0, 0x00, 0x00])
        #expect(try BinaryPlistReader().read(builder.build()) == [1.5])
    }

    @Test func decodesASharedObjectOnce() throws {
        var builder = BinaryPlistBuilder()
        builder.add(BinaryPlistBuilder.array([1, 1, 1]))
        builder.add(BinaryPlistBuilder.ascii("shared"))
        #expect(try BinaryPlistReader().read(builder.build()) == ["shared", "shared", "shared"])
    }
}

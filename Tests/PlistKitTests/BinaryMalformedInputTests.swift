import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// Hostile binary plists: each gives one exact error, never a crash, hang or huge allocation.
@Suite struct BinaryMalformedInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var data: Data
        var error: String
        var testDescription: String { name }
    }

    static func make(_ configure: (inout BinaryPlistBuilder) -> Void) -> Data {
        var builder = BinaryPlistBuilder()
        configure(&builder)
        return builder.build()
    }

    static let valid = make {
        $0.add(BinaryPlistBuilder.array([1])); $0.add(BinaryPlistBuilder.ascii("ok"))
    }

    static let cases: [Case] = [
        Case(name: "empty file", data: Data(), error: "byte 0: not a binary plist (no 'bplist' header)"),
        Case(name: "header only", data: Data("bplist00".utf8), error: "byte 8: truncated: 8 bytes is too short for a binary plist"),
        Case(
            name: "unsupported version", data: Data("bplist15".utf8) + Data(count: 40),
            error: "byte 6: binary plist version '15' is not supported (only '00')"),
        Case(
            name: "truncated in the trailer", data: valid.prefix(valid.count - 5),
            error: "byte 16: offset size 0 in the trailer is not 1, 2, 4 or 8"),
        Case(name: "cut in half", data: valid.prefix(20), error: "byte 20: truncated: 20 bytes is too short for a binary plist"),
        Case(
            name: "reference cycle",
            data: make {
                $0.add(BinaryPlistBuilder.array([1])); $0.add(BinaryPlistBuilder.array([0]))
            },
            error: "byte 8: object 0 contains itself (a reference cycle)"),
        Case(
            name: "self reference", data: make { $0.add(BinaryPlistBuilder.array([0])) },
            error: "byte 8: object 0 contains itself (a reference cycle)"),
        Case(
            name: "reference out of range", data: make { $0.add(BinaryPlistBuilder.array([9])) },
            error: "byte 9: object 0 refers to object 9, but there are only 1"),
        Case(
            name: "two objects at one offset",
            data: make {
                $0.add(BinaryPlistBuilder.array([1, 2])); $0.add(BinaryPlistBuilder.ascii("a")); $0.add(BinaryPlistBuilder.ascii("b"))
                $0.offsetOverrides[2] = 11
            }, error: "byte 11: object 2 overlaps object 1"),
        Case(
            name: "object running into the next",
            data: make {
                $0.add(BinaryPlistBuilder.array([1, 2])); $0.add([0x53, 0x61]); $0.add(BinaryPlistBuilder.ascii("bc"))
            }, error: "byte 13: object 2 overlaps object 1"),
        Case(
            name: "offset outside the object area",
            data: make {
                $0.add([0x09]); $0.offsetOverrides[0] = 200
            },
            error: "byte 9: object 0 has offset 200, outside the object area (8..<9)"),
        Case(
            name: "impossible array count", data: make { $0.add([0xAF, 0x13, 0, 0, 0x10, 0, 0, 0, 0, 0]) },
            error: "byte 8: object 0 claims 17592186044416 items, more than the file holds"),
        Case(
            name: "data longer than the file", data: make { $0.add([0x44, 1, 2]) },
            error: "byte 8: object 0 (data) runs past the object area"),
        Case(
            name: "impossible object count",
            data: make {
                $0.add([0x09]); $0.objectCountOverride = 1 << 60
            },
            error: "byte 18: object count 1152921504606846976 in the trailer is impossible for a file of 42 bytes"),
        Case(
            name: "top object out of range",
            data: make {
                $0.add([0x09]); $0.top = 5
            },
            error: "byte 26: top object 5 is out of range (there are 1 objects)"),
        Case(
            name: "bytes between the offset table and the trailer",
            data: make {
                $0.add([0x09]); $0.bytesBeforeTrailer = [0, 0]
            },
            error: "byte 10: 2 unexpected bytes between the offset table and the trailer"),
        Case(
            name: "offset table running into the trailer",
            data: make {
                $0.add([0x09]); $0.add([0x08]); $0.objectCountOverride = 5
            },
            error: "byte 10: the offset table (5 entries of 1 bytes at byte 10) runs into the trailer"),
        Case(
            name: "bad offset size",
            data: make {
                $0.add([0x09]); $0.offsetSize = 3
            },
            error: "byte 18: offset size 3 in the trailer is not 1, 2, 4 or 8"),
        Case(
            name: "bad reference size",
            data: make {
                $0.add([0x09]); $0.refSize = 0
            },
            error: "byte 17: object reference size 0 in the trailer is not 1, 2, 4 or 8"),
        Case(
            name: "unpaired UTF-16 surrogate", data: make { $0.add([0x61, 0xD8, 0x3D]) },
            error: "byte 9: object 0 is a UTF-16 string with an unpaired surrogate 0xD83D"),
        Case(
            name: "lone low surrogate", data: make { $0.add([0x62, 0x00, 0x41, 0xDC, 0x00]) },
            error: "byte 11: object 0 is a UTF-16 string with an unpaired surrogate 0xDC00"),
        Case(
            name: "non-ASCII byte in an ASCII string", data: make { $0.add([0x52, 0x41, 0xE9]) },
            error: "byte 10: object 0 is an ASCII string holding byte 0xE9"),
        Case(
            name: "non-string dictionary key",
            data: make {
                $0.add(BinaryPlistBuilder.dict([1], [1])); $0.add([0x10, 1])
            },
            error: "byte 9: dictionary object 0 has an integer key; keys must be strings"),
        Case(
            name: "duplicate dictionary key",
            data: make {
                $0.add(BinaryPlistBuilder.dict([1, 1], [2, 2])); $0.add(BinaryPlistBuilder.ascii("k")); $0.add([0x09])
            }, error: "byte 10: dictionary object 0 has the key 'k' twice"),
        Case(name: "null object", data: make { $0.add([0x00]) }, error: "byte 8: object 0 is null, which plists cannot hold"),
        Case(name: "unknown marker", data: make { $0.add([0x70]) }, error: "byte 8: object 0 has unknown marker 0x70"),
        Case(
            name: "unknown integer size", data: make { $0.add([0x15] + [UInt8](repeating: 0, count: 32)) },
            error: "byte 8: object 0 has unknown integer marker 0x15"),
        Case(
            name: "128-bit integer out of range", data: make { $0.add([0x14, 0, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 8)) },
            error: "byte 8: object 0 is a 128-bit integer outside -2^63...2^64-1"),
        Case(
            name: "bad length marker", data: make { $0.add([0x5F, 0x20, 0x01]) },
            error: "byte 9: object 0 has a bad length marker 0x20"),
        Case(
            name: "oversized UID", data: make { $0.add([0x8F] + [UInt8](repeating: 0, count: 16)) },
            error: "byte 8: object 0 is a UID of 16 bytes (at most 8)")
    ]

    @Test(arguments: cases)
    func malformedBinaryGetsAnExactError(_ testCase: Case) {
        FuzzSeeds.export(testCase.data, harness: "binary-plist", name: testCase.name)
        do {
            let value = try BinaryPlistReader().read(testCase.data)
            Issue.record("read \(value) instead of failing")
        } catch let error as Diagnostic where error.is(PlistProblem.self) {
            #expect(error.description == testCase.error)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test(arguments: cases)
    func theStreamingReaderGivesTheSameErrorAsTheValueReader(_ testCase: Case) {
        do {
            try BinaryPlistReader().read(testCase.data, into: PlistTreeBuilder())
            Issue.record("streamed instead of failing")
        } catch let error as Diagnostic where error.is(PlistProblem.self) {
            #expect(error.description == testCase.error)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func everyTruncationOfARealisticFileFailsCleanly() throws {
        let value: PlistValue = ["name": "ShoutOut", "list": [1, 2.5, "três", ["deep": .data(Data(count: 40))]]]
        let full = try BinaryPlistWriter().write(value)
        for length in 0..<full.count {
            expectDiagnostic(PlistProblem.self) { try BinaryPlistReader().read(full.prefix(length)) }
            expectDiagnostic(PlistProblem.self) { try BinaryPlistReader().read(full.prefix(length), into: PlistTreeBuilder()) }
        }
    }

    @Test func nestingDeeperThanTheLimitIsAnError() {
        let depth = 600
        var builder = BinaryPlistBuilder()
        builder.offsetSize = 2
        builder.refSize = 2
        for index in 0..<depth { builder.add([0xA1, UInt8((index + 1) >> 8), UInt8((index + 1) & 0xFF)]) }
        builder.add([0x09])
        #expect(throws: Diagnostic.plist(.limitExceeded, "nesting deeper than 512 levels", at: .byte(8 + 512 * 3))) {
            try BinaryPlistReader().read(builder.build())
        }
    }

    @Test func aSmallFileThatExpandsExponentiallyIsRefused() {
        // Each array holds the next one twice: 60 levels describe 2^60 values in about 250 bytes.
        var builder = BinaryPlistBuilder()
        for index in 0..<60 { builder.add([0xA2, UInt8(index + 1), UInt8(index + 1)]) }
        builder.add([0x09])
        do {
            _ = try BinaryPlistReader().read(builder.build())
            Issue.record("an exponential plist was read")
        } catch let error as Diagnostic where error.is(PlistProblem.self) {
            #expect(error.plistProblem == .limitExceeded)
            #expect(error.message == "the plist expands to more than 100000000 values")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import PlistKit

/// Issue 31: a binary plist whose objects share their children expands, when written out, to far
/// more values than it holds. Every command bounds that count the same way: `print` refused such a
/// 154-byte file at once while `convert` streamed it for 38 s and 1.7 GB; now both refuse it at once
/// with the same line, and nothing is written.
@Suite struct SharedObjectExpansionTests {
    /// Nine levels of ten references to the same array: 10^9 values in a few objects.
    static func bomb(levels: Int) -> Data {
        var builder = BinaryPlistBuilder()
        var inner = builder.add(BinaryPlistBuilder.ascii("x"))
        inner = builder.add(BinaryPlistBuilder.array([inner]))
        for _ in 0..<levels { inner = builder.add(BinaryPlistBuilder.array(Array(repeating: inner, count: 10))) }
        builder.top = inner
        return builder.build()
    }

    @Test func convertingRefusesWhatBuildingTheValueRefusesAtOnceWithTheSameError() throws {
        try withTemporaryFolder { folder in
            let input = try folder.write("bomb.plist", Self.bomb(levels: 9))
            let built = try requireDiagnostic(PlistProblem.self) { try PropertyList(contentsOf: input) }
            #expect(built.plistProblem == .limitExceeded)
            for format in [PlistFormat.xml, .binary, .json] {
                let output = folder.path("out." + format.rawValue)
                let converted = try requireDiagnostic(PlistProblem.self) { try PlistConverter.convert(input, to: format, output: output) }
                #expect(converted.description == built.description, "\(format)")
                #expect(!FileManager.default.fileExists(atPath: output))
            }
        }
    }

    @Test func sharingWithinTheLimitStillConvertsAndCountsAsWritten() throws {
        try withTemporaryFolder { folder in
            // 10^4 leaves: well within the default limit, and over a limit of 1,000.
            let input = try folder.write("shared.plist", Self.bomb(levels: 4))
            for format in [PlistFormat.xml, .binary] {
                try PlistConverter.convert(input, to: format, output: folder.path("out." + format.rawValue))
                let value = try PropertyList(contentsOf: folder.path("out." + format.rawValue)).value
                #expect(value.arrayValue?.count == 10)
                let small = PlistLimits(maxValues: 1000)
                expectDiagnostic(PlistProblem.self) {
                    try PlistConverter.convert(input, to: format, output: folder.path("small." + format.rawValue), limits: small)
                }
            }
        }
    }
}

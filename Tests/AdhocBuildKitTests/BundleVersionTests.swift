import AdhocBuildKit
import Testing

@Suite struct BundleVersionTests {
    @Test func acceptsOneToThreeNonNegativeIntegers() {
        for text in ["0", "42", "1.4", "1.4.2", "2026.12.02"] { #expect(BundleVersion(text) != nil, "\(text)") }
        for text in ["", "1.2.3.4", "1..2", "1.", ".1", "-1", "1.2b", "v1", " 1", "1,2", "１"] {
            #expect(BundleVersion(text) == nil, "\(text)")
        }
    }

    @Test func comparesNumericallyWithMissingPartsAsZero() throws {
        #expect(try #require(BundleVersion("1.10")) > BundleVersion("1.9")!)
        #expect(try #require(BundleVersion("1.0")) == BundleVersion("1")!)
        #expect(try #require(BundleVersion("41")) < BundleVersion("41.0.1")!)
    }

    @Test func incrementsTheLastPartAndBumpsMarketingParts() throws {
        #expect(BundleVersion("41")!.incrementingLast.description == "42")
        #expect(BundleVersion("1.4.9")!.incrementingLast.description == "1.4.10")
        let version = try #require(BundleVersion("1.4.2"))
        #expect(version.bumping(.major).description == "2.0.0")
        #expect(version.bumping(.minor).description == "1.5.0")
        #expect(version.bumping(.patch).description == "1.4.3")
        #expect(BundleVersion("1.4")!.bumping(.patch).description == "1.4.1")
        #expect(BundleVersion("3")!.bumping(.minor).description == "3.1")
    }
}

import AdhocBuildKit
import Foundation
import PlistKit
import TestSupport
import Testing

/// When a build was made, as it says itself: its archive's date, else its signature's signing time.
@Suite struct BuildTimeTests {
    /// The Apple-signed fixture was signed at 2021-05-09T06:59:43Z, in its ipa and unpacked alike.
    @Test(Fixtures.enabled) func aSignedBuildWasMadeWhenItWasSigned() throws {
        try withTemporaryFolder { folder in
            let ipa = Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path
            let signed = BuildTime(date: PlistDate(iso8601: "2021-05-09T06:59:43Z")!.date, source: "its signing time")
            #expect(BuildTime.of(ipa) == signed)
            let unzip = try ProcessResult.run(try #require(ProcessResult.which("unzip")), ["-q", ipa, "-d", folder.path("unpacked")])
            try #require(unzip.status == 0)
            #expect(BuildTime.of(folder.path("unpacked/Payload/Test.app")) == signed)
        }
    }

    /// An archive says when it was made; an unsigned app outside one does not say.
    @Test func anArchiveWasMadeAtItsCreationDateAndAnUnsignedAppIsNotDated() throws {
        try withTemporaryFolder { folder in
            let app = Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut/ShoutOut.app").path
            #expect(BuildTime.of(app) == nil)
            try FileManager.default.createDirectory(
                atPath: folder.path("A.xcarchive/Products/Applications"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: app, toPath: folder.path("A.xcarchive/Products/Applications/ShoutOut.app"))
            let created = PlistDate(iso8601: "2026-03-04T05:06:07Z")!
            try folder.create(
                "A.xcarchive/Info.plist", try PropertyList.encode(["CreationDate": .date(created), "Name": "ShoutOut"], format: .xml))
            #expect(BuildTime.of(folder.path("A.xcarchive")) == BuildTime(date: created.date, source: "its archive's date"))
        }
    }
}

import Foundation
import Manifest
import SystemSupport
import TestSupport
import Testing

@Suite struct BuildInfoTests {
    @Test func buildJSONRoundTripsWithSortedKeys() throws {
        var info = BuildInfo()
        info.appName = "ShoutOut"
        info.version = "1.4"
        info.size = 1234
        info.profile = BuildInfo.Profile(type: "ad-hoc", expires: "2027-01-01T00:00:00Z")
        let data = try info.jsonData()
        #expect(String(decoding: data, as: UTF8.self).hasPrefix("{\n  \"appName\" : \"ShoutOut\",\n  \"profile\""))
        #expect(try BuildInfo(json: data) == info)
    }

    @Test func aBuildJSONThatIsNotOneSaysWhyInOneLine() {
        expectDiagnostic(ManifestProblem.self) { try BuildInfo(json: Data("[1]".utf8)) }
        do { _ = try BuildInfo(json: Data(#"{"version": 7}"#.utf8)) } catch let failure as Diagnostic
            where failure.code == .manifest(.buildInfo)
        {
            #expect(failure.description == "expected a string at 'version'")
        } catch { Issue.record("\(error)") }
    }
}

import Foundation
import PlistKit
import SystemSupport
import Testing

@Suite struct DiagnosticPlistValueTests {
    @Test func aDiagnosticIsWrittenAsAJSONObjectInThePrintersOrder() throws {
        let diagnostic = Diagnostic.plist(.malformed, "expected a string", keyPath: "CFBundleVersion", file: "Info.plist")
        let json = try PropertyList.encode(PlistValue(diagnostic), format: .json)
        #expect(
            String(decoding: json, as: UTF8.self) == """
                {
                  "severity": "error",
                  "code": "plist.malformed",
                  "file": "Info.plist",
                  "places": [
                    "at 'CFBundleVersion'"
                  ],
                  "message": "expected a string"
                }

                """)
    }
}

import Foundation
import PlistEditing
import PlistKit
import SystemSupport
import TestSupport
import Testing

@Suite struct PlistToolTests {
    static let infoXML = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>CFBundleIdentifier</key>
        \t<string>com.example.ShoutOut</string>
        \t<key>CFBundleVersion</key>
        \t<string>41</string>
        \t<key>Count</key>
        \t<integer>3</integer>
        </dict>
        </plist>

        """

    func withFolder(_ body: (TemporaryFolder) throws -> Void) throws {
        try withTemporaryFolder { folder in
            try body(folder)
        }
    }

    func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func setKeepsTheExistingTypeAndTheFileFormat() throws {
        try withFolder { folder in
            let path = try folder.write("Info.plist", Self.infoXML)
            try PlistTool.set(path, keyPath: "Count", text: "4")
            try PlistTool.set(path, keyPath: "CFBundleVersion", text: "42")
            let plist = try PropertyList(contentsOf: path)
            #expect(plist.format == .xml)
            #expect(plist.value["Count"] == 4)
            #expect(plist.value["CFBundleVersion"] == "42")
            #expect(
                try text(path)
                    == Self.infoXML.replacingOccurrences(of: "<integer>3", with: "<integer>4")
                    .replacingOccurrences(of: "<string>41", with: "<string>42"))
        }
    }

    @Test func setKeepsBinaryFilesBinaryAndCreatesIntermediateDictionaries() throws {
        try withFolder { folder in
            let path = try folder.write("Info.plist", try PropertyList.encode(["A": 1], format: .binary))
            try PlistTool.set(path, keyPath: "NSAppTransportSecurity:NSAllowsArbitraryLoads", text: "true", type: .bool)
            let plist = try PropertyList(contentsOf: path)
            #expect(plist.format == .binary)
            #expect(plist.value["NSAppTransportSecurity:NSAllowsArbitraryLoads"] == true)
        }
    }

    @Test func setParsesEveryType() throws {
        try withFolder { folder in
            let path = try folder.write("p.plist", Self.infoXML)
            let cases: [(PlistValueType, String?, PlistValue)] = [
                (.string, "x", "x"), (.integer, "-5", -5), (.real, "2.5", 2.5), (.bool, "no", false),
                (.date, "2020-01-01T00:00:00Z", .date(PlistDate(iso8601: "2020-01-01T00:00:00Z")!)),
                (.data, "AQI=", .data(Data([1, 2]))), (.array, nil, []), (.dict, #"{"k": [1]}"#, ["k": [1]]),
                (.json, #"[true, "s"]"#, [true, "s"])
            ]
            for (type, text, expected) in cases {
                try PlistTool.set(path, keyPath: "V", text: text, type: type)
                #expect(try PropertyList(contentsOf: path).value["V"] == expected, "\(type)")
            }
        }
    }

    @Test func aBadValueIsAnErrorNamingFileAndKeyPathAndChangesNothing() throws {
        try withFolder { folder in
            let path = try folder.write("Info.plist", Self.infoXML)
            #expect(
                throws: Diagnostic.plist(.unrepresentable, "'four' is not an integer from -2^63 to 2^64-1", keyPath: "Count", file: path)
            ) {
                try PlistTool.set(path, keyPath: "Count", text: "four")
            }
            #expect(throws: Diagnostic.plist(.keyPath, "cannot set 'x' inside a string", keyPath: "CFBundleVersion", file: path)) {
                try PlistTool.set(path, keyPath: "CFBundleVersion:x", text: "1")
            }
            #expect(try text(path) == Self.infoXML)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["Info.plist"])
        }
    }

    @Test func deleteRemovesAKeyAndFailsClearlyForAMissingOne() throws {
        try withFolder { folder in
            let path = try folder.write("Info.plist", Self.infoXML)
            try PlistTool.delete(path, keyPath: "Count")
            #expect(try PropertyList(contentsOf: path).value["Count"] == nil)
            #expect(throws: Diagnostic.plist(.keyPath, "no key 'Count'", keyPath: "", file: path)) {
                try PlistTool.delete(path, keyPath: "Count")
            }
        }
    }

    @Test func convertRewritesInPlaceOrToAnotherFileKeepingPermissions() throws {
        try withFolder { folder in
            let path = try folder.write("Info.plist", Self.infoXML)
            chmod(path, 0o600)
            try PlistTool.convert(path, to: .binary)
            #expect(try PropertyList(contentsOf: path).format == .binary)
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let json = folder.path("Info.json")
            try PlistTool.convert(path, to: .json, output: json)
            #expect(try text(json).contains("\"CFBundleVersion\": \"41\""))
            try PlistTool.convert(json, to: .xml, output: folder.path("back.plist"))
            #expect(try text(folder.path("back.plist")) == Self.infoXML)
        }
    }

    @Test func editingAnOpenStepFileInPlaceIsRefused() throws {
        try withFolder { folder in
            let path = try folder.write("project.pbxproj", "{ a = b; }")
            expectDiagnostic(PlistProblem.self) { try PlistTool.set(path, keyPath: "a", text: "c") }
            #expect(try text(path) == "{ a = b; }")
            try PlistTool.set(path, keyPath: "a", text: "c", output: folder.path("out.plist"))
            #expect(try PropertyList(contentsOf: folder.path("out.plist")).value == ["a": "c"])
        }
    }

    @Test func mergeWritesTheResultAndExplainsEachLeaf() throws {
        try withFolder { folder in
            let base = try folder.write("Base.plist", try PropertyList.encode(["API": ["URL": "a", "Retry": 2]], format: .xml))
            let over = try folder.write("Staging.plist", try PropertyList.encode(["API": ["URL": "b"]], format: .binary))
            let out = folder.path("out.plist")
            let merge = try PlistTool.merge(base: base, overlays: [over], output: out)
            #expect(try PropertyList(contentsOf: out) == PropertyList(["API": ["URL": "b", "Retry": 2]], format: .xml))
            #expect(merge.leaves.map(\.source) == [over, base])
        }
    }

    @Test func lintReportsEachFileOnOneLine() throws {
        try withFolder { folder in
            let good = try folder.write("good.plist", Self.infoXML)
            let bad = try folder.write("bad.plist", "<plist><dict><key>a</key></dict></plist>")
            let results = PlistTool.lint([good, bad, folder.path("missing.plist")])
            #expect(
                results.map(\.line) == [
                    "\(good): OK (xml)",
                    "\(bad): 1:33: key 'a' has no value before </dict>",
                    "\(folder.path("missing.plist")): no such file"
                ])
        }
    }

    @Test func printRendersReadableTextAndGetPrintsScalarsBare() throws {
        try withFolder { folder in
            let path = try folder.write("Info.plist", Self.infoXML)
            let printed = String(decoding: try PlistTool.print(path), as: UTF8.self)
            #expect(
                printed == """
                    {
                      "CFBundleIdentifier" => "com.example.ShoutOut"
                      "CFBundleVersion" => "41"
                      "Count" => 3
                    }

                    """)
            #expect(String(decoding: try PlistTool.get(path, keyPath: "CFBundleIdentifier"), as: UTF8.self) == "com.example.ShoutOut\n")
        }
    }
}

import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

@Suite struct XMLPlistWriterTests {
    func xml(_ value: PlistValue, sortKeys: Bool = false) throws -> String {
        String(decoding: try XMLPlistWriter(sortKeys: sortKeys).write(value), as: UTF8.self)
    }

    @Test func writesApplesLayoutWithTabsHeaderAndEmptyContainerTags() throws {
        var dict = PlistDictionary()
        dict["name"] = "Shout & <Out>"
        dict["count"] = .integer(PlistInteger(42))
        dict["ratio"] = .real(1.5)
        dict["whole"] = .real(3)
        dict["on"] = true
        dict["off"] = false
        dict["when"] = .date(PlistDate(iso8601: "2011-05-04T12:30:00Z")!)
        dict["blob"] = .data(Data([0, 1, 2, 3, 255]))
        dict["empty"] = .dictionary(PlistDictionary())
        dict["none"] = .array([])
        dict["list"] = .array(["a", ""])
        let expected = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>name</key>
            \t<string>Shout &amp; &lt;Out&gt;</string>
            \t<key>count</key>
            \t<integer>42</integer>
            \t<key>ratio</key>
            \t<real>1.5</real>
            \t<key>whole</key>
            \t<real>3</real>
            \t<key>on</key>
            \t<true/>
            \t<key>off</key>
            \t<false/>
            \t<key>when</key>
            \t<date>2011-05-04T12:30:00Z</date>
            \t<key>blob</key>
            \t<data>
            \tAAECA/8=
            \t</data>
            \t<key>empty</key>
            \t<dict/>
            \t<key>none</key>
            \t<array/>
            \t<key>list</key>
            \t<array>
            \t\t<string>a</string>
            \t\t<string></string>
            \t</array>
            </dict>
            </plist>

            """
        #expect(try xml(.dictionary(dict)) == expected)
    }

    @Test func writesSpecialRealsAsAppleDoes() throws {
        #expect(try xml(.real(.infinity)).contains("<real>+infinity</real>"))
        #expect(try xml(.real(-.infinity)).contains("<real>-infinity</real>"))
        #expect(try xml(.real(.nan)).contains("<real>nan</real>"))
        #expect(try xml(.real(0.1)).contains("<real>0.1</real>"))
        #expect(try xml(.real(-0.0)).contains("<real>-0</real>"))
    }

    @Test func realsRoundTripToTheSameBits() throws {
        let samples: [Double] = [0.1, 1.0 / 3, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -1e-300, 123456789.123456789, 1e16, -0.0]
        for sample in samples {
            let back = try XMLPlistReader().read(try XMLPlistWriter().write(.real(sample)))
            #expect(back == .real(sample), "\(sample)")
        }
    }

    @Test func integersCoverTheWholeRange() throws {
        let low = PlistValue.integer(PlistInteger(Int64.min))
        let high = PlistValue.integer(PlistInteger(UInt64.max))
        #expect(try xml(low).contains("<integer>-9223372036854775808</integer>"))
        #expect(try xml(high).contains("<integer>18446744073709551615</integer>"))
        #expect(try XMLPlistReader().read(try XMLPlistWriter().write(.array([low, high]))) == .array([low, high]))
    }

    @Test func escapesCarriageReturnsSoTheySurviveLineEndNormalisation() throws {
        let text = try xml(.string("a\r\nb"))
        #expect(text.contains("<string>a&#13;\nb</string>"))
        #expect(try XMLPlistReader().read(Data(text.utf8)) == .string("a\r\nb"))
    }

    @Test func refusesControlCharactersThatXMLCannotCarryAndNamesTheKeyPath() throws {
        var dict = PlistDictionary()
        dict["outer"] = .array(["fine", "bell\u{7}"])
        #expect(
            throws: Diagnostic.plist(
                .unrepresentable, "the string holds U+0007, which XML cannot carry; write binary instead",
                keyPath: "outer:1")
        ) {
            try XMLPlistWriter().write(.dictionary(dict))
        }
    }

    /// A date XML cannot carry (it wrote `<date>invalid-date</date>`, which nothing reads back) is
    /// refused with its key path, in XML and JSON; the edges of four-digit years round-trip.
    @Test(arguments: [Double.nan, -Double.infinity, 3e11, 253_402_300_800 - 978_307_200, -377_705_116_801 - 978_307_200] as [Double])
    func refusesDatesWithoutAFourDigitYearAndNamesTheKeyPath(seconds: Double) throws {
        let value: PlistValue = [
            "outer": .array([.date(PlistDate(secondsSinceReferenceDate: 0)), .date(PlistDate(secondsSinceReferenceDate: seconds))])
        ]
        expectDiagnostic(PlistProblem.self) { try XMLPlistWriter().write(value) }
        do { _ = try XMLPlistWriter().write(value) } catch let error as Diagnostic where error.is(PlistProblem.self) {
            #expect(error.keyPath == "outer:1" && error.plistProblem == .unrepresentable, "\(error)")
        }
        expectDiagnostic(PlistProblem.self) { try PropertyList(value).data(format: .json) }
        for edge in [253_402_300_799 - 978_307_200, -377_705_116_800 - 978_307_200] as [Double] {
            let text = try xml(.date(PlistDate(secondsSinceReferenceDate: edge)))
            #expect(try XMLPlistReader().read(Data(text.utf8)) == .date(PlistDate(secondsSinceReferenceDate: edge)), "\(text)")
        }
    }

    @Test func sortsKeysByUTF16WhenAsked() throws {
        let value: PlistValue = ["b": 1, "B": 2, "a": 3, "é": 4]
        let text = try xml(value, sortKeys: true)
        let keys = text.components(separatedBy: "<key>").dropFirst().map { $0.components(separatedBy: "</key>")[0] }
        #expect(keys == ["B", "a", "b", "é"])
    }

    @Test func writesLongDataInLinesOfSeventySixCharacters() throws {
        let text = try xml(.data(Data(repeating: 7, count: 120)))
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("BwcH") }
        #expect(lines.map { $0.count } == [76, 76, 8])
    }

    /// Data is laid out as Core Foundation lays it out at every depth (lines of 76 characters less
    /// 8 for each tab, tabs stopping at 8), byte for byte against the toolchain's plutil: editing
    /// one key of a file plutil wrote no longer rewraps every nested `<data>`.
    @Test func nestedDataIsWrappedAsCoreFoundationWrapsIt() throws {
        try withTemporaryFolder { folder in
            var value = PlistValue.data(Data((0..<150).map { UInt8($0) }))
            var top = PlistDictionary()
            for depth in 0..<12 {
                top["d\(depth)"] = value
                value =
                    depth % 2 == 0 ? .array([value, .data(Data(repeating: 1, count: 40))]) : .dictionary(PlistDictionary([("k", value)]))
            }
            let binary = try folder.create("nested.plist", try PropertyList.encode(.dictionary(top), format: .binary))
            let plutil = try ProcessResult.run(try Plutil.locate(), ["-convert", "xml1", "-o", "-", binary])
            #expect(plutil.status == 0, "\(plutil.stderrText)")
            #expect(try XMLPlistWriter(sortKeys: true).write(.dictionary(top)) == plutil.stdout)
        }
    }

    @Test func writesUIDAsCoreFoundationDoesInXML() throws {
        #expect(try xml(.uid(5)).contains("<dict>\n\t<key>CF$UID</key>\n\t<integer>5</integer>\n</dict>"))
    }
}

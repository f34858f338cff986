import Foundation
import PlistKit
import Testing

@Suite struct XMLPlistReaderTests {
    static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    func read(_ body: String, header: Bool = true) throws -> PlistValue {
        try XMLPlistReader().read(Data(((header ? Self.header : "") + body).utf8))
    }

    @Test func readsEveryValueKind() throws {
        let value = try read(
            """
            <dict>
            \t<key>s</key><string>a &amp; b &lt;c&gt; &#x1F680; &#13;</string>
            \t<key>i</key><integer> -42</integer>
            \t<key>h</key><integer>0x1F</integer>
            \t<key>r</key><real>2.5e3</real>
            \t<key>t</key><true/>
            \t<key>f</key><false></false>
            \t<key>d</key><date>2001-01-01T00:00:01Z</date>
            \t<key>b</key><data>
            \t\tAAEC
            \t\tAw==
            \t</data>
            \t<key>a</key><array><string/><dict/></array>
            </dict>
            </plist>
            """)
        let expected: PlistValue = [
            "s": .string("a & b <c> 🚀 \r"), "i": -42, "h": 31, "r": 2500.0, "t": true, "f": false,
            "d": .date(PlistDate(secondsSinceReferenceDate: 1)), "b": .data(Data([0, 1, 2, 3])),
            "a": ["", .dictionary(PlistDictionary())]
        ]
        #expect(value == expected)
    }

    @Test func keepsKeyOrderAsWritten() throws {
        let value = try read("<dict><key>z</key><true/><key>a</key><true/><key>m</key><true/></dict></plist>")
        #expect(value.dictionaryValue?.keys == ["z", "a", "m"])
    }

    @Test func readsSpecialRealsInEverySpellingAppleWrites() throws {
        for (text, expected) in [
            ("nan", Double.nan), ("+infinity", .infinity), ("-infinity", -.infinity),
            ("inf", .infinity), ("-inf", -.infinity), ("Infinity", .infinity), ("1", 1), ("-0.0", -0.0)
        ] {
            #expect(try read("<real>\(text)</real></plist>") == .real(expected), "\(text)")
        }
    }

    @Test func readsAPlistWithoutTheOuterPlistElement() throws {
        #expect(try read("<?xml version=\"1.0\"?><array><integer>1</integer></array>", header: false) == [1])
    }

    @Test func readsCDATAAsText() throws {
        #expect(try read("<string><![CDATA[<not a tag> & such]]></string></plist>") == "<not a tag> & such")
    }

    @Test func readsUTF16Documents() throws {
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in "<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist><string>héllo</string></plist>".utf16 {
            bytes.append(UInt8(unit & 0xFF))
            bytes.append(UInt8(unit >> 8))
        }
        #expect(try XMLPlistReader().read(Data(bytes)) == "héllo")
    }

    @Test func readsDatesInTheShortFormsAppleAccepts() throws {
        #expect(try read("<date>2020-02-29T23:59:59Z</date></plist>") == .date(PlistDate(iso8601: "2020-02-29T23:59:59Z")!))
        #expect(PlistDate(iso8601: "2020")?.iso8601 == "2020-01-01T00:00:00Z")
        #expect(PlistDate(iso8601: "1969-12-31T23:59:59Z")?.secondsSinceReferenceDate == -978_307_201)
        #expect(PlistDate(iso8601: "2019-02-29T00:00:00Z") == nil)
    }
}

import Foundation
import PlistKit

/// Degenerate and malformed inputs for every plist format, made in code so the differential
/// test can hand each one to Core Foundation's `plutil` and to our readers.
///
/// Names are unique and stable: the table of intentional divergences refers to them.
enum DegeneratePlistInputs {
    struct Case: CustomStringConvertible {
        /// `family/what`, e.g. `xml/integer with a plus sign`.
        var name: String
        var bytes: Data
        var description: String { name }
    }

    static var all: [Case] { encodings + xml + binary + openStep + json }

    static func text(_ family: String, _ what: String, _ text: String) -> Case {
        Case(name: "\(family)/\(what)", bytes: Data(text.utf8))
    }

    static let prolog = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    static let doctype = "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"

    /// A complete XML plist whose root value is `body`.
    static func xmlDocument(_ body: String) -> String { prolog + "<plist version=\"1.0\">" + body + "</plist>\n" }

    // MARK: empty input, white space and byte-order marks

    static let boms: [(String, [UInt8])] = [
        ("UTF-8 BOM", [0xEF, 0xBB, 0xBF]),
        ("UTF-16LE BOM", [0xFF, 0xFE]),
        ("UTF-16BE BOM", [0xFE, 0xFF]),
        ("UTF-32LE BOM", [0xFF, 0xFE, 0x00, 0x00]),
        ("UTF-32BE BOM", [0x00, 0x00, 0xFE, 0xFF])
    ]

    /// `text` encoded to match the byte-order mark (UTF-8 text after a UTF-8 mark, and so on).
    static func encoded(_ text: String, as bom: String) -> [UInt8] {
        switch bom {
        case "UTF-8 BOM": return Array(text.utf8)
        case "UTF-16LE BOM": return text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        case "UTF-16BE BOM": return text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case "UTF-32LE BOM": return text.unicodeScalars.flatMap { s in (0..<4).map { UInt8(truncatingIfNeeded: s.value >> ($0 * 8)) } }
        default: return text.unicodeScalars.flatMap { s in (0..<4).reversed().map { UInt8(truncatingIfNeeded: s.value >> ($0 * 8)) } }
        }
    }

    static var encodings: [Case] {
        var cases = [
            Case(name: "any/empty file", bytes: Data()),
            text("any", "one space", " "),
            text("any", "only newlines", "\n\n\r\n"),
            text("any", "only tabs and spaces", "\t  \t "),
            Case(name: "any/one NUL byte", bytes: Data([0])),
            Case(name: "any/NUL bytes", bytes: Data(count: 16)),
            text("any", "only a line comment", "// nothing\n"),
            text("any", "only a block comment", "/* nothing */")
        ]
        let samples = [
            ("XML", xmlDocument("<string>é</string>")),
            ("XML without declaration", "<plist version=\"1.0\"><string>é</string></plist>"),
            ("OpenStep", "{ a = \"é\"; }"),
            ("strings file", "\"a\" = \"é\";\n"),
            ("JSON", "{\"a\": \"é\"}"),
            ("nothing", ""),
            ("white space", " \n")
        ]
        for (bomName, bom) in boms {
            for (what, sample) in samples {
                cases.append(Case(name: "any/\(bomName) then \(what)", bytes: Data(bom + encoded(sample, as: bomName))))
            }
        }
        cases.append(
            Case(name: "any/UTF-8 BOM twice then OpenStep", bytes: Data([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("{a=b;}".utf8))))
        cases.append(Case(name: "any/UTF-16 without BOM then XML", bytes: Data(encoded(xmlDocument("<true/>"), as: "UTF-16LE BOM"))))
        cases.append(Case(name: "any/UTF-16BE BOM odd length", bytes: Data([0xFE, 0xFF, 0x00, 0x7B, 0x00])))
        return cases
    }

    // MARK: XML

    static var xml: [Case] {
        var cases: [Case] = []
        func add(_ what: String, _ document: String) { cases.append(text("xml", what, document)) }
        // Declarations and document structure.
        add("valid", xmlDocument("<dict><key>a</key><integer>1</integer></dict>"))
        add("no declaration", "<plist version=\"1.0\"><true/></plist>")
        add("no plist element, bare value", prolog + "<true/>")
        add("no plist element, bare dict", prolog + "<dict><key>a</key><string>b</string></dict>")
        add("declaration with UTF-16 encoding", "<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist><true/></plist>")
        add("declaration with ISO-8859-1 encoding", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist><string>\u{E9}</string></plist>")
        cases.append(
            Case(
                name: "xml/ISO-8859-1 bytes declared ISO-8859-1",
                bytes: Data(
                    Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist><string>".utf8) + [0xE9] + Array("</string></plist>".utf8))
            ))
        add("declaration with unknown encoding", "<?xml version=\"1.0\" encoding=\"x-nonsense\"?><plist><true/></plist>")
        add("declaration version 1.1", "<?xml version=\"1.1\"?><plist><true/></plist>")
        add("declaration without version", "<?xml encoding=\"UTF-8\"?><plist><true/></plist>")
        add("declaration not first", "\n" + prolog + "<plist><true/></plist>")
        add("declaration twice", prolog + prolog + "<plist><true/></plist>")
        add("doctype", prolog + doctype + "<plist version=\"1.0\"><true/></plist>")
        add("plist without version attribute", prolog + "<plist><true/></plist>")
        add("plist version 2.0", prolog + "<plist version=\"2.0\"><true/></plist>")
        add("plist with unknown attribute", prolog + "<plist foo=\"bar\"><true/></plist>")
        add("empty plist element", prolog + "<plist/>")
        add("empty plist element with end tag", prolog + "<plist></plist>")
        add("plist with only white space", prolog + "<plist>\n  \n</plist>")
        add("two plist roots", prolog + "<plist><true/></plist><plist><true/></plist>")
        add("plist inside plist", prolog + "<plist><plist><true/></plist></plist>")
        add("two values in plist", prolog + "<plist><true/><false/></plist>")
        add("two bare values", prolog + "<true/><false/>")
        add("text after the root", xmlDocument("<true/>") + "junk")
        add("element after the root", xmlDocument("<true/>") + "<true/>")
        add("comment after the root", xmlDocument("<true/>") + "<!-- end -->")
        add("processing instruction after the root", xmlDocument("<true/>") + "<?foo bar?>")
        add("text before the root", prolog + "junk<plist><true/></plist>")
        add("text inside plist", prolog + "<plist>junk<true/></plist>")
        add("comment inside plist", prolog + "<plist><!-- c --><true/></plist>")
        add("comment inside dict", xmlDocument("<dict><!-- c --><key>a</key><!-- c --><true/></dict>"))
        add("comment inside string", xmlDocument("<string>a<!-- c -->b</string>"))
        add("comment inside integer", xmlDocument("<integer>1<!-- c -->2</integer>"))
        add("processing instruction inside string", xmlDocument("<string>a<?pi x?>b</string>"))
        add("processing instruction inside array", xmlDocument("<array><?pi x?><true/></array>"))
        add("CDATA string", xmlDocument("<string><![CDATA[a<b>&c]]></string>"))
        add("CDATA integer", xmlDocument("<integer><![CDATA[42]]></integer>"))
        add("CDATA key", xmlDocument("<dict><key><![CDATA[k]]></key><true/></dict>"))
        add("CDATA inside array", xmlDocument("<array><![CDATA[x]]></array>"))
        add("CDATA real", xmlDocument("<real><![CDATA[1.5]]></real>"))
        add("CDATA date", xmlDocument("<date><![CDATA[2024-01-01T00:00:00Z]]></date>"))
        add("CDATA data", xmlDocument("<data><![CDATA[AAEC]]></data>"))
        add("empty CDATA in true", xmlDocument("<true><![CDATA[]]></true>"))
        add("CDATA and text in string", xmlDocument("<string>a<![CDATA[<b>]]>c</string>"))
        add("comment inside key", xmlDocument("<dict><key>a<!-- c -->b</key><true/></dict>"))
        add("comment inside data", xmlDocument("<data>AA<!-- c -->EC</data>"))
        add("comment inside real", xmlDocument("<real>1<!-- c -->.5</real>"))
        add("comment alone in string", xmlDocument("<string><!-- c --></string>"))
        add("comment before the declaration", "<!-- c -->" + prolog + "<plist><true/></plist>")
        add("comment between declaration and plist", prolog + "<!-- c --><plist><true/></plist>")
        add("processing instruction before plist", prolog + "<?pi x?><plist><true/></plist>")
        add("default namespace on a value", xmlDocument("<string xmlns=\"urn:x\">a</string>"))
        add("prefixed attribute on a value", xmlDocument("<string xmlns:x=\"urn:x\" x:a=\"1\">a</string>"))
        add("prefixed plist element", prolog + "<x:plist xmlns:x=\"urn:x\"><true/></x:plist>")
        add("unknown root element", prolog + "<foo/>")
        add("unknown element in array", xmlDocument("<array><foo/></array>"))
        add("namespaced element", xmlDocument("<x:string xmlns:x=\"urn:x\">a</x:string>"))
        add("attribute on a value", xmlDocument("<string id=\"1\">a</string>"))
        add("element inside string", xmlDocument("<string>a<b/>c</string>"))
        add("element inside key", xmlDocument("<dict><key>a<true/></key><true/></dict>"))
        add("mismatched tags", xmlDocument("<array></dict>"))
        add("unclosed plist", prolog + "<plist><true/>")
        add("only declaration", prolog)
        add("only doctype", prolog + doctype)
        add("only a comment", "<!-- nothing -->")
        add("a lone angle bracket", "<")
        // Entities and character references.
        add("predefined entities", xmlDocument("<string>&lt;&gt;&amp;&apos;&quot;</string>"))
        add("character references", xmlDocument("<string>&#65;&#x42;</string>"))
        add("character reference to NUL", xmlDocument("<string>&#0;</string>"))
        add("undefined entity", xmlDocument("<string>&nbsp;</string>"))
        add("bare ampersand", xmlDocument("<string>a & b</string>"))
        add("internal subset entity", prolog + "<!DOCTYPE plist [<!ENTITY e \"x\">]><plist><string>&e;</string></plist>")
        // Strings and keys.
        add("empty string", xmlDocument("<string></string>"))
        add("self-closed string", xmlDocument("<string/>"))
        add("string with only white space", xmlDocument("<string>  \n </string>"))
        add("self-closed key", xmlDocument("<dict><key/><true/></dict>"))
        add("empty dict self-closed", xmlDocument("<dict/>"))
        add("empty array self-closed", xmlDocument("<array/>"))
        add("key without value", xmlDocument("<dict><key>a</key></dict>"))
        add("value without key", xmlDocument("<dict><true/></dict>"))
        add("two keys", xmlDocument("<dict><key>a</key><key>b</key><true/></dict>"))
        add("duplicate keys", xmlDocument("<dict><key>a</key><true/><key>a</key><false/></dict>"))
        add("key in array", xmlDocument("<array><key>a</key></array>"))
        add("key at the root", xmlDocument("<key>a</key>"))
        add("text in dict", xmlDocument("<dict>junk<key>a</key><true/></dict>"))
        add("text in array", xmlDocument("<array>junk</array>"))
        add("text in true", xmlDocument("<true>yes</true>"))
        add("white space in true", xmlDocument("<true> </true>"))
        add("newline in false", xmlDocument("<false>\n</false>"))
        add("element in true", xmlDocument("<true><false/></true>"))
        add("ustring element", xmlDocument("<ustring>a</ustring>"))
        add("nested depth 100", xmlDocument(String(repeating: "<array>", count: 100) + String(repeating: "</array>", count: 100)))
        add("nested depth 513", xmlDocument(String(repeating: "<array>", count: 513) + String(repeating: "</array>", count: 513)))
        add("invalid UTF-8 in string", xmlDocument("<string>\u{FFFD}</string>"))
        cases.append(
            Case(
                name: "xml/invalid UTF-8 bytes in string",
                bytes: Data(Array((prolog + "<plist><string>").utf8) + [0xC3, 0x28] + Array("</string></plist>".utf8))))
        add("control character in string", xmlDocument("<string>\u{01}</string>"))
        // Integers.
        for (what, body) in [
            ("empty", ""), ("white space only", " "), ("zero", "0"), ("plus sign", "+5"), ("minus zero", "-0"),
            ("leading zeros", "007"), ("surrounding white space", " 12 \n"), ("inner white space", "1 2"),
            ("leading white space", "\n\t 12"), ("trailing white space", "12 "), ("leading white space and sign", " -12"),
            ("hex", "0x1F"), ("hex upper", "0X1f"), ("negative hex", "-0x10"), ("hex without digits", "0x"),
            ("octal-looking", "010"), ("Int64 max", "9223372036854775807"), ("Int64 min", "-9223372036854775808"),
            ("below Int64 min", "-9223372036854775809"), ("UInt64 max", "18446744073709551615"),
            ("past UInt64 max", "18446744073709551616"), ("far past 64 bits", "123456789012345678901234567890"),
            ("hex UInt64 max", "0xFFFFFFFFFFFFFFFF"), ("hex past 64 bits", "0x10000000000000000"),
            ("decimal point", "1.0"), ("exponent", "1e3"), ("letters after digits", "12abc"), ("only a sign", "-"),
            ("two signs", "--1"), ("trailing sign", "1-"), ("nan", "nan")
        ] {
            add("integer \(what)", xmlDocument("<integer>\(body)</integer>"))
        }
        add("integer self-closed", xmlDocument("<integer/>"))
        // Reals.
        for (what, body) in [
            ("empty", ""), ("integer text", "3"), ("plus sign", "+1.5"), ("leading dot", ".5"), ("trailing dot", "5."),
            ("exponent", "1e10"), ("exponent overflow", "1e400"), ("exponent underflow", "1e-400"), ("nan", "nan"),
            ("NaN", "NaN"), ("negative nan", "-nan"), ("inf", "inf"), ("infinity", "infinity"), ("Infinity", "Infinity"),
            ("negative inf", "-inf"), ("plus inf", "+inf"), ("hex float", "0x1p3"), ("hex integer", "0x10"),
            ("surrounding white space", " 2.5 "), ("leading white space", "\n2.5"), ("trailing white space", "2.5\n"),
            ("plus nan", "+nan"), ("NAN", "NAN"), ("plus infinity", "+infinity"), ("INF", "INF"), ("negative Infinity", "-Infinity"),
            ("two dots", "1.2.3"), ("letters", "abc"), ("only a dot", "."),
            ("only a sign", "-"), ("comma decimal", "1,5"), ("minus zero", "-0.0")
        ] {
            add("real \(what)", xmlDocument("<real>\(body)</real>"))
        }
        // Dates.
        for (what, body) in [
            ("valid", "2024-02-29T12:34:56Z"), ("empty", ""), ("no Z", "2024-01-01T00:00:00"),
            ("fractional seconds", "2024-01-01T00:00:00.5Z"), ("offset", "2024-01-01T00:00:00+01:00"),
            ("date only", "2024-01-01"), ("year only", "2024"), ("month 13", "2024-13-01T00:00:00Z"),
            ("February 30", "2023-02-30T00:00:00Z"), ("hour 24", "2024-01-01T24:00:00Z"), ("second 60", "2024-01-01T23:59:60Z"),
            ("space instead of T", "2024-01-01 00:00:00Z"), ("lowercase t and z", "2024-01-01t00:00:00z"),
            ("surrounding white space", " 2024-01-01T00:00:00Z "), ("leading white space", "\n2024-01-01T00:00:00Z"),
            ("trailing white space", "2024-01-01T00:00:00Z\n"), ("hour and minute only", "2024-01-01T10:20Z"),
            ("two-digit year", "24-01-01T00:00:00Z"),
            ("five-digit year", "12024-01-01T00:00:00Z"), ("year 0000", "0000-01-01T00:00:00Z"),
            ("negative year", "-0001-01-01T00:00:00Z"), ("one-digit fields", "2024-1-1T1:2:3Z"),
            ("trailing junk", "2024-01-01T00:00:00Zjunk"), ("words", "yesterday")
        ] {
            add("date \(what)", xmlDocument("<date>\(body)</date>"))
        }
        // Data.
        for (what, body) in [
            ("empty", ""), ("valid", "AAEC"), ("white space inside", " AA\nEC \t"), ("no padding", "AAE"),
            ("no padding after a full group", "AAECAw"), ("one padding", "AAE="), ("two padding", "AA=="),
            ("one padding where two belong", "AA="), ("padding then white space", "AA==\n"), ("over-padded", "AA===="),
            ("padding in the middle", "AA==AAEC"),
            ("one character", "A"), ("invalid character", "AA*A"), ("URL-safe alphabet", "-_-_"),
            ("only padding", "===="), ("non-ASCII", "AAé")
        ] {
            add("data \(what)", xmlDocument("<data>\(body)</data>"))
        }
        return cases
    }

    // MARK: binary

    /// A small valid binary plist: `{ "a" = ( 1, "x", true ); }`, one-byte offsets and references.
    /// `gap` goes between the header and the first object, referenced by nothing.
    static func smallBinary(gap: [UInt8] = []) -> [UInt8] {
        var out = Array("bplist00".utf8) + gap
        let objects: [[UInt8]] = [
            [0xD1, 1, 2],  // 0: dict { 1: 2 }
            [0x51, UInt8(ascii: "a")],  // 1: "a"
            [0xA3, 3, 4, 5],  // 2: array (3, 4, 5)
            [0x10, 1],  // 3: 1
            [0x51, UInt8(ascii: "x")],  // 4: "x"
            [0x09]  // 5: true
        ]
        var offsets: [UInt8] = []
        for object in objects { offsets.append(UInt8(out.count)); out += object }
        let table = out.count
        out += offsets
        out += trailer(offsetSize: 1, refSize: 1, count: UInt64(objects.count), top: 0, table: UInt64(table))
        return out
    }

    static func trailer(offsetSize: UInt8, refSize: UInt8, count: UInt64, top: UInt64, table: UInt64) -> [UInt8] {
        func be64(_ value: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        return [0, 0, 0, 0, 0, 0, offsetSize, refSize] + be64(count) + be64(top) + be64(table)
    }

    static var binary: [Case] {
        let valid = smallBinary()
        var cases = [Case(name: "binary/valid", bytes: Data(valid))]
        for length in 0..<valid.count {
            cases.append(Case(name: "binary/truncated to \(length) bytes", bytes: Data(valid.prefix(length))))
        }
        func patched(_ what: String, _ change: (inout [UInt8]) -> Void) {
            var bytes = valid
            change(&bytes)
            cases.append(Case(name: "binary/\(what)", bytes: Data(bytes)))
        }
        let trailer = valid.count - 32
        for version in ["01", "10", "1x", "0 ", "15", "\u{0}\u{0}"] {
            patched("version '\(version.debugDescription.dropFirst().dropLast())'") { bytes in
                bytes.replaceSubrange(6..<8, with: Array(version.utf8))
            }
        }
        patched("magic bplisz") { $0[5] = UInt8(ascii: "z") }
        for size: UInt8 in [0, 2, 3, 4, 5, 6, 7, 8, 9, 255] {
            patched("offset size \(size)") { $0[trailer + 6] = size }
            patched("reference size \(size)") { $0[trailer + 7] = size }
        }
        func setTrailerField(_ bytes: inout [UInt8], _ field: Int, _ value: UInt64) {
            for index in 0..<8 { bytes[trailer + 8 + field * 8 + index] = UInt8(truncatingIfNeeded: value >> ((7 - index) * 8)) }
        }
        for count: UInt64 in [0, 1, 5, 7, 100, UInt64.max] {
            patched("object count \(count)") { setTrailerField(&$0, 0, count) }
        }
        for top: UInt64 in [1, 2, 5, 6, UInt64.max] {
            patched("top object \(top)") { setTrailerField(&$0, 1, top) }
        }
        for table: UInt64 in [0, 7, 8, UInt64(trailer - 6 - 1), UInt64(trailer - 6 + 1), UInt64(trailer), UInt64(valid.count), UInt64.max] {
            patched("offset table at \(table)") { setTrailerField(&$0, 2, table) }
        }
        patched("sort version byte set") { $0[trailer + 5] = 1 }
        patched("unused trailer bytes set") { $0[trailer] = 0xFF }
        // Object references and offsets (the dict's value ref is byte 10, the array's refs 14...16).
        patched("key reference out of range") { $0[9] = 6 }
        patched("value reference out of range") { $0[10] = 200 }
        patched("array reference out of range") { $0[16] = 6 }
        patched("array refers to the dict") { $0[14] = 0 }
        patched("array refers to itself") { $0[14] = 2 }
        patched("dict key is an integer") { $0[9] = 3 }
        patched("object offset into the header") { $0[trailer - 6] = 2 }
        patched("object offset past the table") { $0[trailer - 6 + 3] = 250 }
        patched("array count too large") { $0[13] = 0xA9 }
        patched("null object") { $0[21] = 0x00 }
        patched("fill byte 0x0F object") { $0[21] = 0x0F }
        patched("unknown marker 0x70") { $0[21] = 0x70 }
        patched("set marker") { $0[13] = 0xC3 }
        patched("ordered set marker") { $0[13] = 0xB3 }
        patched("integer marker 0x13 where a 2-byte one was") { $0[17] = 0x13 }
        patched("4-byte integer overlapping the next object") { $0[17] = 0x12 }
        patched("ASCII string with a high byte") { $0[20] = 0xE9 }
        patched("ASCII string with a NUL byte") { $0[20] = 0x00 }
        cases.append(Case(name: "binary/trailing bytes after the trailer", bytes: Data(valid + [0, 0, 0, 0])))
        cases.append(Case(name: "binary/one trailing byte", bytes: Data(valid + [0x0A])))
        var gap = valid
        gap.insert(contentsOf: [0, 0], at: trailer)
        cases.append(Case(name: "binary/bytes between table and trailer", bytes: Data(gap)))
        cases.append(Case(name: "binary/unreferenced byte before the objects", bytes: Data(smallBinary(gap: [0]))))
        cases.append(Case(name: "binary/only the magic", bytes: Data("bplist".utf8)))
        cases.append(Case(name: "binary/header and zeros", bytes: Data(Array("bplist00".utf8) + [UInt8](repeating: 0, count: 40))))
        return cases
    }

    // MARK: OpenStep

    static var openStep: [Case] {
        var cases: [Case] = []
        func add(_ what: String, _ document: String) { cases.append(text("openstep", what, document)) }
        add("valid", "{ a = (1, \"two\", <0a0b>); \"b c\" = { }; }")
        add("strings file", "\"a\" = \"b\";\n\"c\" = \"d\";\n")
        add("strings file without final semicolon", "\"a\" = \"b\"")
        add("strings file key only", "\"a\";")
        add("strings file keys only", "a; b;")
        add("strings file key only then pair", "\"a\"; \"b\" = \"c\";")
        add("strings file bare key", "a")
        add("strings file with comment", "/* c */ \"a\" = \"b\"; // d\n")
        add("bare unquoted string", "hello")
        add("bare quoted string", "\"hello\"")
        add("bare number", "123")
        add("bare string then junk", "\"a\" junk")
        add("two bare strings", "a b")
        add("bare array", "(a, b)")
        add("bare data", "<0a0b>")
        add("empty dict", "{}")
        add("empty array", "()")
        add("dict then junk", "{} x")
        add("dict then semicolon", "{};")
        add("two dicts", "{}{}")
        add("unterminated dict", "{ a = b;")
        add("unterminated array", "(a, b")
        add("array with trailing comma", "(a, b,)")
        add("array with only a comma", "(,)")
        add("array with double comma", "(a,,b)")
        add("array without commas", "(a b)")
        add("dict without semicolon", "{ a = b }")
        add("dict with stray semicolon", "{ ; }")
        add("dict with double semicolon", "{ a = b;; }")
        add("dict key without value", "{ a; }")
        add("dict key with equals but no value", "{ a = ; }")
        add("dict with array key", "{ (a) = b; }")
        add("dict with dict key", "{ {} = b; }")
        add("dict with data key", "{ <00> = b; }")
        add("dict duplicate key", "{ a = b; a = c; }")
        add("dict colon instead of equals", "{ a : b; }")
        add("unterminated quoted string", "{ a = \"b; }")
        add("unterminated single-quoted string", "{ a = 'b; }")
        add("single-quoted string", "{ a = 'b c'; }")
        add("unterminated block comment", "{ a = b; /* never ends }")
        add("block comment at end", "{ a = b; } /* never ends")
        add("line comment without newline", "{ a = b; } // end")
        add("comment between key and equals", "{ a /* c */ = b; }")
        add("nested comment", "/* a /* b */ c */ {}")
        add("data odd nibbles", "{ a = <0a0>; }")
        add("data one nibble", "<a>")
        add("data empty", "<>")
        add("data with spaces", "< 0a 0b >")
        add("data with non-hex", "<0g>")
        add("data unterminated", "<0a0b")
        add("data uppercase", "<0A0B>")
        add("data root then junk", "<0a0b> x")
        add("data root with comment", "/* c */ <0a0b>")
        add("data root looking like an XML tag", "<abcd>")
        for (what, word) in [
            ("at sign", "a@b"), ("hash", "a#b"), ("percent", "a%b"), ("caret", "a^b"), ("ampersand", "a&b"),
            ("star", "a*b"), ("bang", "a!b"), ("question", "a?b"), ("tilde", "a~b"), ("backslash", "a\\b"),
            ("pipe", "a|b"), ("non-ASCII", "a\u{E9}b"), ("backquote", "a`b")
        ] {
            add("unquoted string with \(what)", "{ k = \(word); }")
        }
        add("unquoted string of dots and slashes", "{ k = ../a/b:c$d_e+f-g; }")
        add("unquoted string with plus", "{ k = a+b; }")
        add("unquoted string with dollar", "{ k = a$b; }")
        add("unquoted string of punctuation only", "{ k = ./:-_$; }")
        add("escape sequences", "{ k = \"\\a\\b\\f\\n\\r\\t\\v\\\\\\\"\\'\"; }")
        add("octal escape", "{ k = \"\\101\\351\"; }")
        add("octal escape ASCII", "{ k = \"\\101\\012\\177\"; }")
        add("octal escape high", "{ k = \"\\200\"; }")
        add("octal escape 8", "{ k = \"\\8\"; }")
        add("unicode escape", "{ k = \"\\U00e9\\u0041\"; }")
        add("unicode escape uppercase only", "{ k = \"\\U00e9\\U0041\"; }")
        add("lowercase u is not an escape", "{ k = \"\\u00e9\"; }")
        add("unicode escape without digits", "{ k = \"\\Uzz\"; }")
        add("unicode escape surrogate pair", "{ k = \"\\UD83D\\UDE00\"; }")
        add("unicode escape lone surrogate", "{ k = \"\\UD83D\"; }")
        add("escape at end of input", "{ k = \"\\")
        add("NUL in quoted string", "{ k = \"a\u{0}b\"; }")
        add("newline in quoted string", "{ k = \"a\nb\"; }")
        add("only an open brace", "{")
        add("only a close brace", "}")
        add("only a semicolon", ";")
        add("only an equals", "=")
        add("only a comma", ",")
        add("nested depth 100", String(repeating: "(", count: 100) + String(repeating: ")", count: 100))
        add("nested depth 513", String(repeating: "(", count: 513) + String(repeating: ")", count: 513))
        add("form feed and vertical tab white space", "{\u{0C}a\u{0B}=\u{0B}b;\u{0C}}")
        cases.append(
            Case(name: "openstep/invalid UTF-8 in quoted string", bytes: Data(Array("{ k = \"".utf8) + [0xC3, 0x28] + Array("\"; }".utf8))))
        cases.append(Case(name: "openstep/invalid UTF-8 unquoted", bytes: Data(Array("{ k = ".utf8) + [0xFF] + Array("; }".utf8))))
        cases.append(
            Case(name: "openstep/Latin-1 byte in quoted string", bytes: Data(Array("{ k = \"".utf8) + [0xE9] + Array("\"; }".utf8))))
        return cases
    }

    // MARK: JSON

    static var json: [Case] {
        var cases: [Case] = []
        func add(_ what: String, _ document: String) { cases.append(text("json", what, document)) }
        add("object", "{\"a\": [1, 2.5, \"x\", true, false, {}]}")
        add("array", "[1, \"a\"]")
        add("empty object", "{}")
        add("empty array", "[]")
        add("object with white space", " \n{ \"a\" : 1 }\n ")
        add("trailing comma in object", "{\"a\": 1,}")
        add("trailing comma in array", "[1,]")
        add("missing value", "{\"a\":}")
        add("missing colon", "{\"a\" 1}")
        add("unquoted key", "{a: 1}")
        add("single-quoted string", "['a']")
        add("unterminated object", "{\"a\": 1")
        add("unterminated array", "[1, 2")
        add("unterminated string", "[\"abc]")
        add("null in array", "[null]")
        add("null value", "{\"a\": null}")
        add("duplicate key", "{\"a\": 1, \"a\": 2}")
        add("number leading zero", "[01]")
        add("number plus sign", "[+1]")
        add("number leading dot", "[.5]")
        add("number trailing dot", "[5.]")
        add("number exponent without digits", "[1e]")
        add("number huge integer", "[123456789012345678901234567890]")
        add("number UInt64 max", "[18446744073709551615]")
        add("number Int64 min", "[-9223372036854775808]")
        add("number huge exponent", "[1e400]")
        add("number negative zero", "[-0]")
        add("number minus alone", "[-]")
        add("NaN literal", "[NaN]")
        add("Infinity literal", "[Infinity]")
        add("hex number", "[0x10]")
        add("true literal misspelled", "[tru]")
        add("escape sequences", "[\"\\n\\t\\\"\\\\\\/\\b\\f\\r\\u00e9\"]")
        add("bad escape", "[\"\\x\"]")
        add("lone surrogate escape", "[\"\\ud83d\"]")
        add("surrogate pair escape", "[\"\\ud83d\\ude00\"]")
        add("raw control character in string", "[\"a\u{01}b\"]")
        add("raw tab in string", "[\"a\tb\"]")
        add("comment", "[1 /* c */]")
        add("two values", "[1] [2]")
        add("text after the value", "{} x")
        add("nested depth 100", String(repeating: "[", count: 100) + String(repeating: "]", count: 100))
        add("nested depth 513", String(repeating: "[", count: 513) + String(repeating: "]", count: 513))
        add("non-string key", "{1: 2}")
        cases.append(Case(name: "json/invalid UTF-8", bytes: Data(Array("[\"".utf8) + [0xC3, 0x28] + Array("\"]".utf8))))
        return cases
    }
}

import Foundation
import PlistKit
import Testing

@Suite struct PlistTextPrinterTests {
    static let value: PlistValue = ["name": "Shout \"Out\"\n", "list": [1, 2.5, true], "empty": [], "data": .data(Data([0xAB, 1]))]

    @Test func rendersIndentedTextForPeople() {
        #expect(
            PlistTextPrinter().render(Self.value) == """
                {
                  "name" => "Shout \\"Out\\"\\n"
                  "list" => [
                    0 => 1
                    1 => 2.5
                    2 => true
                  ]
                  "empty" => []
                  "data" => <2 bytes: ab01>
                }

                """)
    }

    @Test func rendersOneLineForExplanationsAndDiffs() {
        #expect(
            PlistTextPrinter().renderInline(Self.value)
                == #"{"name" => "Shout \"Out\"\n", "list" => [1, 2.5, true], "empty" => [], "data" => <2 bytes: ab01>}"#)
    }

    @Test func rendersScalarsBareForScripts() {
        #expect(PlistTextPrinter().renderRaw("text") == "text\n")
        #expect(PlistTextPrinter().renderRaw(.data(Data([1, 2, 3]))) == "AQID\n")
        #expect(PlistTextPrinter().renderRaw(.date(PlistDate(secondsSinceReferenceDate: 0))) == "2001-01-01T00:00:00Z\n")
    }
}

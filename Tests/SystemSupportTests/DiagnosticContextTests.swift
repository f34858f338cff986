import Foundation
import SystemSupport
import Testing

@Suite struct DiagnosticContextTests {
    enum SampleProblem: String, DiagnosticKind {
        case bad
        static let domain = "sample"
    }

    enum OtherProblem: String, DiagnosticKind {
        case bad
        static let domain = "other"
    }

    struct Foreign: Error, Equatable {}

    static let sample = Diagnostic(DiagnosticCode(SampleProblem.bad), "bad magic", places: [.hexByte(16)])
    static let other = Diagnostic(DiagnosticCode(OtherProblem.bad), "cannot be read")

    @Test func isTellsTheDomainOfADiagnostic() {
        #expect(Self.sample.is(SampleProblem.self))
        #expect(!Self.sample.is(OtherProblem.self))
        #expect(Self.other.is(OtherProblem.self))
    }

    @Test func inFileOnlyNamesTheFileInDiagnosticsOfTheGivenDomain() {
        let named = #expect(throws: Diagnostic.self) { try inFile("X.plist", only: SampleProblem.self) { throw Self.sample } }
        #expect(named?.file == "X.plist" && named?.code == Self.sample.code)
        let untouched = #expect(throws: Diagnostic.self) { try inFile("X.plist", only: SampleProblem.self) { throw Self.other } }
        #expect(untouched == Self.other)
        #expect(throws: Foreign()) { try inFile("X.plist", only: SampleProblem.self) { throw Foreign() } }
    }

    @Test func inFileKeepsAFileAlreadyNamedAndReturnsTheResult() throws {
        let inner = Self.sample.inFile("Inner.plist")
        let thrown = #expect(throws: Diagnostic.self) { try inFile("Outer", only: SampleProblem.self) { throw inner } }
        #expect(thrown?.file == "Inner.plist")
        #expect(try inFile("X", only: SampleProblem.self) { 42 } == 42)
    }

    @Test func withinOnlyPutsThePlaceInFrontInDiagnosticsOfTheGivenDomain() throws {
        let placed = #expect(throws: Diagnostic.self) { try within("slice arm64", only: SampleProblem.self) { throw Self.sample } }
        #expect(placed?.description == "slice arm64: byte 0x10: bad magic")
        let untouched = #expect(throws: Diagnostic.self) { try within("slice arm64", only: SampleProblem.self) { throw Self.other } }
        #expect(untouched == Self.other)
        #expect(throws: Foreign()) { try within("slice arm64", only: SampleProblem.self) { throw Foreign() } }
        #expect(try within("slice arm64", only: SampleProblem.self) { "read" } == "read")
    }

    @Test func mappingTextRenamesAWorkPathInEveryTextButKeepsCodeSeverityAndNumbers() {
        var warning = Diagnostic(
            DiagnosticCode(SampleProblem.bad), "/w/tmp/Test.app/Info.plist changes", file: "/w/tmp/Test.app",
            places: [.entry("/w/tmp/Test.app/x"), .hexByte(16), .text("in /w/tmp/Test.app")], hint: "re-sign /w/tmp/Test.app",
            severity: .warning)
        warning.subject = "/w/tmp/Test.app"
        let shown = warning.mappingText { $0.replacingOccurrences(of: "/w/tmp/Test.app", with: "in.ipa: Payload/Test.app") }
        #expect(shown.file == "in.ipa: Payload/Test.app" && shown.subject == "in.ipa: Payload/Test.app")
        #expect(shown.places == [.entry("in.ipa: Payload/Test.app/x"), .hexByte(16), .text("in in.ipa: Payload/Test.app")])
        #expect(shown.message == "in.ipa: Payload/Test.app/Info.plist changes" && shown.hint == "re-sign in.ipa: Payload/Test.app")
        #expect(shown.code == warning.code && shown.severity == .warning)
    }
}

import SystemSupport
import Testing

@Suite struct DiagnosticJSONTests {
    enum SampleProblem: String, DiagnosticKind {
        case bad
        static let domain = "sample"
    }

    @Test func theJSONObjectHasEveryFieldInOneOrderWithCodeAsDomainDotKind() {
        var diagnostic = Diagnostic(
            DiagnosticCode(SampleProblem.bad), "expected a string", file: "Info.plist", places: [.line(3, column: 7), .keyPath("A")],
            hint: "write one", severity: .warning)
        diagnostic.subject = "A"
        let object = diagnostic.jsonObject
        #expect(object.map(\.key) == ["severity", "code", "file", "places", "subject", "message", "hint"])
        #expect(
            object.map(\.value) == [
                .string("warning"), .string("sample.bad"), .string("Info.plist"), .strings(["3:7", "at 'A'"]), .string("A"),
                .string("expected a string"), .string("write one")
            ])
    }

    @Test func fieldsADiagnosticDoesNotHaveAreLeftOut() {
        let object = Diagnostic(DiagnosticCode(SampleProblem.bad), "bad").jsonObject
        #expect(object.map(\.key) == ["severity", "code", "message"])
        #expect(object.map(\.value) == [.string("error"), .string("sample.bad"), .string("bad")])
        let list = Diagnostics([Diagnostic(DiagnosticCode(SampleProblem.bad), "one"), Diagnostic(DiagnosticCode(SampleProblem.bad), "two")])
        #expect(list.jsonObjects.map { $0.last?.value } == [.string("one"), .string("two")])
    }
}

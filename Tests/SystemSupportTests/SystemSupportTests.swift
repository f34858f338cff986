import Foundation
import SystemSupport
import Testing

@Suite struct DiagnosticTests {
    enum SampleProblem: String, DiagnosticKind {
        case bad
        case limitExceeded
        static let domain = "sample"
    }

    static func sample(_ message: String, file: String? = nil, places: [Diagnostic.Place] = [], hint: String? = nil) -> Diagnostic {
        Diagnostic(DiagnosticCode(SampleProblem.bad), message, file: file, places: places, hint: hint)
    }

    @Test func theDescriptionJoinsFilePlacesAndMessageAndTheReportAddsTheHint() {
        let error = Self.sample("'x' is not an integer", file: "Info.plist", places: [.line(3, column: 7)], hint: "write a number")
        #expect(error.description == "Info.plist: 3:7: 'x' is not an integer")
        #expect(error.report == "Info.plist: 3:7: 'x' is not an integer (write a number)")
        #expect(Self.sample("bad").report == "bad")
    }

    @Test func eachPlaceReadsAsTheLineSaysIt() {
        let places: [Diagnostic.Place] = [
            .byte(40), .hexByte(40), .line(3, column: 7), .keyPath("A:0"), .keyPath(""), .entry("Payload/A.app/Info.plist"),
            .block(3, byte: 5), .block(2, byte: nil), .text("slice arm64")
        ]
        #expect(
            places.map(\.text) == [
                "byte 40", "byte 0x28", "3:7", "at 'A:0'", "at the root", "Payload/A.app/Info.plist", "block 3 at byte 5", "block 2",
                "slice arm64"
            ])
    }

    @Test func contextIsAddedWithoutReplacingWhatIsThere() throws {
        let inner = Self.sample("bad magic", places: [.hexByte(16)])
        #expect(inner.within("slice arm64").inFile("A").description == "A: slice arm64: byte 0x10: bad magic")
        #expect(inner.inFile("A").inFile("B").file == "A")
        let thrown = #expect(throws: Diagnostic.self) { try inFile("X.plist") { throw inner } }
        #expect(thrown?.file == "X.plist" && thrown?.code == DiagnosticCode(SampleProblem.bad))
    }

    @Test func theKeyPathIsOnePlaceThatCanBeSetOrReplaced() {
        var error = Self.sample("expected a string", places: [.line(3, column: 7)])
        #expect(error.keyPath == nil)
        error.keyPath = "CFBundleVersion"
        #expect(error.description == "3:7: at 'CFBundleVersion': expected a string")
        error.keyPath = "Other"
        #expect(error.places == [.line(3, column: 7), .keyPath("Other")])
        #expect(error.lineAndColumn?.line == 3)
    }

    @Test func codesCompareByDomainAndKind() {
        let bad = DiagnosticCode(SampleProblem.bad)
        #expect(bad.description == "sample.bad" && bad.domain == SampleProblem.domain)
        #expect(bad != DiagnosticCode(SampleProblem.limitExceeded))
        #expect(Diagnostic(DiagnosticCode(SampleProblem.limitExceeded), "too big").isLimitExceeded)
        #expect(!Self.sample("bad").isLimitExceeded)
        #expect(Self.sample("bad").asWarning.severity == .warning)
    }

    @Test func everyErrorHasReportLines() {
        let one = Self.sample("first", file: "a")
        let two = Self.sample("second", file: "b", places: [.keyPath("K")], hint: "fix it")
        #expect(reportLines(for: one) == ["a: first"])
        #expect(reportLines(for: Diagnostics([one, two])) == ["a: first", "b: at 'K': second (fix it)"])
        #expect(reportLines(for: CocoaError(.fileNoSuchFile)).count == 1)
    }

    @Test func aSystemErrorSaysWhatFailedOnWhichFileAndErrnosText() {
        let error = Diagnostic.system("cannot be read", file: "/x/y", code: ENOENT)
        #expect(error.description == "/x/y: cannot be read: No such file or directory")
        #expect(error.code == .file(.system) && error.systemCode == ENOENT)
    }
}

@Suite struct SystemCallTests {
    @Test func anInterruptedCallIsMadeAgainAndOtherFailuresAreReturned() {
        var calls = 0
        let result = retryingInterrupted { () -> Int in
            calls += 1
            if calls < 3 { errno = EINTR; return -1 }
            return 42
        }
        #expect(result == 42 && calls == 3)
        calls = 0
        let failed = retryingInterrupted { () -> Int32 in
            calls += 1
            errno = EBADF
            return -1
        }
        #expect(failed == -1 && errno == EBADF && calls == 1)
        #expect(retryingInterrupted { read(-1, nil, 0) } == -1 && errno == EBADF)
    }
}

@Suite struct SuggestionTests {
    @Test func theNearestCandidateIsSuggestedOnlyWhenItIsClose() {
        #expect(Suggestion.closest(to: "Stagng", in: ["Debug", "Staging", "Release"]) == "Staging")
        #expect(Suggestion.closest(to: "Production", in: ["Debug", "Staging"]) == nil)
        #expect(Suggestion.distance("kitten", "SITTING") == 3)
    }
}

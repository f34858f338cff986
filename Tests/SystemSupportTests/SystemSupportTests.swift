import Foundation
import SystemSupport
import Testing

@Suite struct DiagnosticErrorTests {
    struct Sample: DiagnosticError {
        var file: String?
        var location: String?
        var problem: String
        var hint: String?
    }

    struct Several: DiagnosticErrorList {
        var diagnostics: [any DiagnosticError]
    }

    @Test func theDescriptionJoinsFilePlaceAndProblemAndTheReportAddsTheHint() {
        let error = Sample(file: "Info.plist", location: "3:7", problem: "'x' is not an integer", hint: "write a number")
        #expect(error.description == "Info.plist: 3:7: 'x' is not an integer")
        #expect(error.report == "Info.plist: 3:7: 'x' is not an integer (write a number)")
        #expect(Sample(file: nil, location: nil, problem: "bad", hint: nil).report == "bad")
    }

    @Test func everyErrorHasReportLines() {
        let one = Sample(file: "a", location: nil, problem: "first", hint: nil)
        let two = Sample(file: "b", location: "at 'K'", problem: "second", hint: "fix it")
        #expect(reportLines(for: one) == ["a: first"])
        #expect(reportLines(for: Several(diagnostics: [one, two])) == ["a: first", "b: at 'K': second (fix it)"])
        #expect(reportLines(for: CocoaError(.fileNoSuchFile)).count == 1)
    }

    @Test func aSystemErrorSaysWhatFailedOnWhichFileAndErrnosText() {
        let error = SystemError("cannot be read", file: "/x/y", code: ENOENT)
        #expect(error.description == "/x/y: cannot be read: No such file or directory")
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

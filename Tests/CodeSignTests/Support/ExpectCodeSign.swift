import CodeSign
import SystemSupport
import TestSupport
import Testing

/// Expects `body` to throw a code signing diagnostic of `kind`, and returns it.
@discardableResult
func expectCodeSign(
    _ kind: CodeSignProblem, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    performing body: () throws -> Any
) -> Diagnostic? {
    let diagnostic = expectDiagnostic(CodeSignProblem.self, comment, sourceLocation: sourceLocation, performing: body)
    if let diagnostic {
        #expect(diagnostic.code == .codeSign(kind), "\(diagnostic)\(comment.map { ": \($0)" } ?? "")", sourceLocation: sourceLocation)
    }
    return diagnostic
}

/// Expects `body` to throw a code signing diagnostic of `kind`, and returns it.
@discardableResult
func expectCodeSign(
    _ kind: CodeSignProblem, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    performing body: () throws -> Void
) -> Diagnostic? {
    expectCodeSign(kind, comment, sourceLocation: sourceLocation) { () throws -> Any in try body() }
}

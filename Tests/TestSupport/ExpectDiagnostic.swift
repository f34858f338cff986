import SystemSupport
import Testing

/// Checks that `body` throws a ``Diagnostic`` of `domain` (`IPAProblem.self`, `PlistProblem.self`, …)
/// and returns it, recording an issue otherwise: what `#expect(throws: SomeError.self)` checked when
/// each module had an error type of its own.
@discardableResult
public func expectDiagnostic<Kind: DiagnosticKind>(
    _ domain: Kind.Type, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    performing body: () throws -> Any
) -> Diagnostic? {
    do {
        _ = try body()
        Issue.record(
            "expected a \(Kind.domain) diagnostic; nothing was thrown\(comment.map { ": \($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch let diagnostic as Diagnostic where diagnostic.is(Kind.self) {
        return diagnostic
    } catch {
        Issue.record("expected a \(Kind.domain) diagnostic, got \(error)\(comment.map { ": \($0)" } ?? "")", sourceLocation: sourceLocation)
    }
    return nil
}

/// ``expectDiagnostic(_:_:sourceLocation:performing:)`` that stops the test when the diagnostic is not thrown.
public func requireDiagnostic<Kind: DiagnosticKind>(
    _ domain: Kind.Type, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    performing body: () throws -> Any
) throws -> Diagnostic {
    let diagnostic = expectDiagnostic(domain, comment, sourceLocation: sourceLocation, performing: body)
    return try #require(diagnostic, sourceLocation: sourceLocation)
}

/// ``expectDiagnostic(_:_:sourceLocation:performing:)`` for a body of several statements.
@discardableResult
public func expectDiagnostic<Kind: DiagnosticKind>(
    _ domain: Kind.Type, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    performing body: () throws -> Void
) -> Diagnostic? {
    expectDiagnostic(domain, comment, sourceLocation: sourceLocation) { () throws -> Any in try body() }
}

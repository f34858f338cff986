/// Adding context to diagnostics on the way up: the file, or a place in front, for the diagnostics
/// of one domain or of all. These are the one way a caller adds context; nothing re-wraps an error's text.

extension Diagnostic {
    /// Whether the diagnostic is of `kind`'s domain (`error.is(PlistProblem.self)`).
    public func `is`<Kind: DiagnosticKind>(_ kind: Kind.Type) -> Bool { code.domain == Kind.domain }
}

/// Runs `body`, naming `file` in any diagnostic it throws that names no file yet.
@discardableResult
public func inFile<Result>(_ file: String, _ body: () throws -> Result) throws -> Result {
    do { return try body() } catch let diagnostic as Diagnostic { throw diagnostic.inFile(file) }
}

/// Runs `body`, naming `file` in any diagnostic of `kind`'s domain it throws that names no file yet;
/// other errors pass through as they are.
@discardableResult
public func inFile<Result, Kind: DiagnosticKind>(
    _ file: String, only kind: Kind.Type, _ body: () throws -> Result
) throws -> Result {
    do { return try body() } catch let diagnostic as Diagnostic where diagnostic.is(kind) { throw diagnostic.inFile(file) }
}

/// Runs `body`, putting `place` in front of the places of any diagnostic of `kind`'s domain it throws
/// (`slice arm64: byte 0x40`); other errors pass through as they are.
@discardableResult
public func within<Result, Kind: DiagnosticKind>(
    _ place: String, only kind: Kind.Type, _ body: () throws -> Result
) throws -> Result {
    do { return try body() } catch let diagnostic as Diagnostic where diagnostic.is(kind) { throw diagnostic.within(place) }
}

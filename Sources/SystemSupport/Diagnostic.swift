import Foundation

/// The one error (and warning) type of adhocbuild: what is wrong, where, and what kind of problem it is.
///
/// Every module throws `Diagnostic`s, built by its own factories (`Diagnostic.plist(.malformed, …)`,
/// `Diagnostic.ipa(…)`, `Diagnostic.codeSign(…)`), so callers branch on ``code`` and tests match
/// codes and fields, not wording. Context is added on the way up with ``inFile(_:)`` and
/// ``within(_:)``, never by wrapping one error's text in another.
///
/// ``description`` is one line: the file, the places from the outermost in, then the message, joined by `: `
/// (`Info.plist: 3:7: at 'CFBundleVersion': expected a string`). ``report`` adds the hint.
public struct Diagnostic: Error, Sendable, Equatable, CustomStringConvertible {
    /// Whether the problem stops the command or is only told.
    public enum Severity: String, Sendable {
        case error
        case warning
    }

    /// One step of where the problem is, printed in the line between the file and the message.
    public enum Place: Sendable, Equatable {
        /// A byte offset, printed `byte 40`.
        case byte(Int)
        /// A byte offset in a binary format, printed `byte 0x28`.
        case hexByte(Int)
        /// A line and column of a text, printed `3:7`.
        case line(Int, column: Int)
        /// A key path in PlistBuddy notation, printed `at 'Key:Sub'` (`at the root` when empty).
        case keyPath(String)
        /// An archive entry, printed as its name.
        case entry(String)
        /// A block of a compressed stream, counted from 0, and the byte it starts at: `block 3 at byte 40`.
        case block(Int, byte: Int?)
        /// Any other place, printed as it is (`slice arm64`, `CodeDirectory`, `block 3 at byte 5`).
        case text(String)

        /// How the place reads in the line.
        public var text: String {
            switch self {
            case .byte(let offset): return "byte \(offset)"
            case .hexByte(let offset): return "byte 0x" + String(offset, radix: 16)
            case .line(let line, let column): return "\(line):\(column)"
            case .keyPath(let path): return path.isEmpty ? "at the root" : "at '\(path)'"
            case .entry(let name): return name
            case .block(let block, let byte?): return "block \(block) at byte \(byte)"
            case .block(let block, nil): return "block \(block)"
            case .text(let text): return text
            }
        }
    }

    public var severity: Severity
    /// What kind of problem it is: its domain and its kind in that domain.
    public var code: DiagnosticCode
    /// The file concerned, when known.
    public var file: String?
    /// Where in the file, from the outermost place in.
    public var places: [Place]
    /// What is wrong, quoting the bad value.
    public var message: String
    /// What to do about it, when there is something to say (a limit that can be raised, …).
    public var hint: String?
    /// The name the diagnostic is about, for callers that act on it (an undefined variable, the step
    /// of a release that failed); not printed.
    public var subject: String?
    /// The errno of the system call that failed, for ``FileProblem/system`` diagnostics.
    public var systemCode: Int32?

    public init(
        _ code: DiagnosticCode, _ message: String, file: String? = nil, places: [Place] = [],
        hint: String? = nil, severity: Severity = .error
    ) {
        self.code = code
        self.message = message
        self.file = file
        self.places = places
        self.hint = hint
        self.severity = severity
    }

    /// The places as they read in the line (`3:7: at 'CFBundleVersion'`), nil when there is none.
    public var location: String? { places.isEmpty ? nil : places.map(\.text).joined(separator: ": ") }

    /// One line: the file, the place and the message, joined by `: `.
    public var description: String { [file, location, message].compactMap { $0 }.joined(separator: ": ") }

    /// The line printed for the user: ``description``, then the hint in parentheses.
    public var report: String { hint.map { "\(description) (\($0))" } ?? description }

    /// Whether a documented limit (size, count, depth) was exceeded.
    public var isLimitExceeded: Bool { code.kind == DiagnosticCode.limitExceeded }

    /// The key path among the places, when there is one; setting it replaces that place, or adds one
    /// at the end.
    public var keyPath: String? {
        get {
            for case .keyPath(let path) in places { return path }
            return nil
        }
        set {
            places.removeAll { if case .keyPath = $0 { true } else { false } }
            if let newValue { places.append(.keyPath(newValue)) }
        }
    }

    /// The archive entry among the places, when there is one.
    public var entry: String? {
        for case .entry(let name) in places { return name }
        return nil
    }

    /// The line and column among the places, when there are.
    public var lineAndColumn: (line: Int, column: Int)? {
        for case .line(let line, let column) in places { return (line, column) }
        return nil
    }

    /// The same diagnostic, naming `path` unless it already names a file.
    public func inFile(_ path: String) -> Diagnostic {
        var copy = self
        if copy.file == nil { copy.file = path }
        return copy
    }

    /// The same diagnostic with `place` put in front of its places (`slice arm64: byte 0x40`).
    public func within(_ place: Place) -> Diagnostic {
        var copy = self
        copy.places.insert(place, at: 0)
        return copy
    }

    /// The same diagnostic with `place` put in front of its places, as it reads (`slice arm64`).
    public func within(_ place: String) -> Diagnostic { within(.text(place)) }

    /// The same diagnostic with `rename` applied to every text it holds (file, places, message, hint,
    /// subject): a work copy's paths told as the user's (`…/.adhocbuild-tmp-…/Test.app` → `in.ipa`).
    public func mappingText(_ rename: (String) -> String) -> Diagnostic {
        var copy = self
        copy.file = file.map(rename)
        copy.places = places.map { place in
            switch place {
            case .text(let text): return .text(rename(text))
            case .entry(let entry): return .entry(rename(entry))
            default: return place
            }
        }
        copy.message = rename(message)
        copy.hint = hint.map(rename)
        copy.subject = subject.map(rename)
        return copy
    }

    /// The same diagnostic, told as a warning.
    public var asWarning: Diagnostic {
        var copy = self
        copy.severity = .warning
        return copy
    }
}

/// What kind of problem a ``Diagnostic`` is: a domain (`plist`, `ipa`, `codesign`, …) and a kind in it
/// (`malformed`, `limitExceeded`, …). Each module declares its kinds as an enum conforming to
/// ``DiagnosticKind`` and a factory (`.plist(.malformed)`), so a code is typed where it is made and
/// compared where it is checked.
public struct DiagnosticCode: Hashable, Sendable, CustomStringConvertible {
    public let domain: String
    public let kind: String

    public init<Kind: DiagnosticKind>(_ kind: Kind) {
        self.domain = Kind.domain
        self.kind = kind.rawValue
    }

    /// `domain.kind`, as the JSON printer writes it.
    public var description: String { "\(domain).\(kind)" }

    /// The kind every domain uses for an exceeded limit (it gets ``raiseLimitsHint`` where the limit can be raised).
    public static let limitExceeded = "limitExceeded"
}

/// The kinds of problem of one domain.
public protocol DiagnosticKind: RawRepresentable<String>, Sendable {
    /// The domain's name in codes (`plist`, `zip`, `codesign`).
    static var domain: String { get }
}

/// Several diagnostics reported together (a check that collects everything it finds).
public struct Diagnostics: Error, Sendable, Equatable, CustomStringConvertible {
    public var items: [Diagnostic]

    public init(_ items: [Diagnostic]) { self.items = items }

    /// One line per diagnostic.
    public var description: String { items.map(\.description).joined(separator: "\n") }
}

/// The lines to print for any error: each diagnostic's ``Diagnostic/report``, or one line for
/// errors from outside this package (a Foundation error's path and reason, never its dump).
public func reportLines(for error: any Error) -> [String] {
    switch error {
    case let list as Diagnostics: return list.items.map(\.report)
    case let diagnostic as Diagnostic: return [diagnostic.report]
    default: return [FoundationError.line(error)]
    }
}

/// The hint of errors that exceeded a documented limit.
public let raiseLimitsHint = "limits can be raised: see Environment in 'adhocbuild --help'"

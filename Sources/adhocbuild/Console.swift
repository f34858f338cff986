import Foundation
import SystemSupport

/// Where the tool prints: results to standard output, diagnostics to standard error,
/// colour only on a terminal and never with `NO_COLOR` or `TERM=dumb`.
///
/// Text goes through ``UntrustedText`` on its way out, since much of it comes from builds and files
/// that others control (a certificate's name, a bundle's, an archive entry's): a newline inside an
/// error or a ``line(_:bold:)`` is shown as `\u{0A}`, so it cannot print a line of its own, and
/// ``out(_:)-(String)`` shows every control character but the line ends between its lines. Only
/// ``ciMessage(_:)``, for lines already encoded for the CI server, and data print as they are.
enum Console {
    /// Prints lines of text; control characters other than the line ends and tabs are shown.
    static func out(_ text: String) { write(UntrustedText.block(text)) }

    /// Writes `text` to standard output as it is, from the string's own UTF-8 storage: a `Data`
    /// made of its UTF-8 view looked up, at run time, conformances the view does not have (a scan
    /// of every conformance record in the binary, on the way out of every command).
    private static func write(_ text: String) {
        var text = text
        text.withUTF8 { out(UnsafeRawBufferPointer($0)) }
    }

    /// Prints `text` as one line (a newline inside it is shown, not obeyed), bold on a terminal when asked.
    static func line(_ text: String, bold: Bool = false) {
        let shown = UntrustedText.line(text)
        write((bold ? Console.bold(shown) : shown) + "\n")
    }

    /// Prints each of `lines` as ``line(_:bold:)`` does.
    static func lines(_ lines: [String]) {
        write(lines.map { UntrustedText.line($0) + "\n" }.joined())
    }

    /// Prints a line already encoded for the CI server (a TeamCity service message, a GitHub workflow
    /// command), exactly as it is.
    static func ciMessage(_ line: String) { write(line + "\n") }

    /// Writes to standard output; when that fails (a full disk, a closed pipe with SIGPIPE
    /// ignored) the process ends with one line on standard error and status 1, not a trap.
    static func out(_ data: Data) { data.withUnsafeBytes { out($0) } }

    /// Writes `bytes` to standard output, as ``out(_:)-(Data)`` does.
    static func out(_ bytes: UnsafeRawBufferPointer) {
        do {
            try FileIO.writeAll(STDOUT_FILENO, bytes)
        } catch {
            for line in reportLines(
                for: (error as? Diagnostic).flatMap { $0.is(FileProblem.self) ? $0.inFile("standard output") : nil } ?? error)
            { Console.error(line) }
            exit(1)
        }
    }

    /// Writes to standard error as it is (a progress bar's `\r`), ignoring failures (there is nowhere
    /// left to report them).
    static func err(_ text: String) {
        var text = text
        _ = try? text.withUTF8 { try FileIO.writeAll(STDERR_FILENO, UnsafeRawBufferPointer($0)) }
    }

    static var colorsStandardOutput: Bool {
        let environment = ProcessInfo.processInfo.environment
        if environment["NO_COLOR"] != nil || environment["TERM"] == "dumb" { return false }
        return isatty(STDOUT_FILENO) != 0
    }

    /// Bold on a terminal, plain otherwise.
    static func bold(_ text: String) -> String { colorsStandardOutput ? "\u{1B}[1m\(text)\u{1B}[0m" : text }

    static var colorsStandardError: Bool {
        let environment = ProcessInfo.processInfo.environment
        if environment["NO_COLOR"] != nil || environment["TERM"] == "dumb" { return false }
        return isatty(STDERR_FILENO) != 0
    }

    /// `error: ` and `message` as one line.
    static func error(_ message: String) {
        let label = colorsStandardError ? "\u{1B}[1;31merror:\u{1B}[0m" : "error:"
        err("\(label) \(UntrustedText.line(message))\n")
    }

    /// `warning: ` and `message` as one line.
    static func warning(_ message: String) {
        let label = colorsStandardError ? "\u{1B}[1;33mwarning:\u{1B}[0m" : "warning:"
        err("\(label) \(UntrustedText.line(message))\n")
    }
}

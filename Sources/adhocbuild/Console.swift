import Foundation
import SystemSupport

/// Where the tool prints: results to standard output, diagnostics to standard error,
/// colour only on a terminal and never with `NO_COLOR` or `TERM=dumb`.
enum Console {
    static func out(_ text: String) { out(Data(text.utf8)) }

    /// Writes to standard output; when that fails (a full disk, a closed pipe with SIGPIPE
    /// ignored) the process ends with one line on standard error and status 1, not a trap.
    static func out(_ data: Data) {
        do {
            try data.withUnsafeBytes { try FileIO.writeAll(STDOUT_FILENO, $0) }
        } catch {
            for line in reportLines(for: (error as? FileError)?.inFile("standard output") ?? error) { Console.error(line) }
            exit(1)
        }
    }

    /// Writes to standard error, ignoring failures (there is nowhere left to report them).
    static func err(_ text: String) {
        _ = try? Data(text.utf8).withUnsafeBytes { try FileIO.writeAll(STDERR_FILENO, $0) }
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

    static func error(_ message: String) {
        let label = colorsStandardError ? "\u{1B}[1;31merror:\u{1B}[0m" : "error:"
        err("\(label) \(message)\n")
    }

    static func warning(_ message: String) {
        let label = colorsStandardError ? "\u{1B}[1;33mwarning:\u{1B}[0m" : "warning:"
        err("\(label) \(message)\n")
    }
}

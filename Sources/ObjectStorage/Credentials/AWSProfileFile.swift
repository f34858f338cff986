import Foundation
import SystemSupport

/// One of the AWS tools' INI files (`~/.aws/credentials`, `~/.aws/config`), read as botocore reads
/// them: `[section]` headers, `name = value` (or `name: value`) lines with the name in lower case,
/// `#` and `;` comment lines, indented lines continuing a nested value (skipped here).
///
/// A line that is none of these is an error naming the file and the line, never quoting it (it could
/// hold a secret).
public struct AWSProfileFile: Sendable {
    public let path: String
    /// The sections by their header's name (`default`, `profile ci`), each with its values.
    public let sections: [String: [String: String]]

    public init(path: String, text: String) throws {
        self.path = path
        var sections: [String: [String: String]] = [:]
        var current: String?
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            if line.first == " " || line.first == "\t" {
                guard current != nil else { throw Self.malformed(path, line: index + 1) }
                continue
            }
            if trimmed.hasPrefix("[") {
                guard trimmed.hasSuffix("]"), trimmed.count > 2 else { throw Self.malformed(path, line: index + 1) }
                let name = trimmed.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                current = name
                sections[name, default: [:]] = sections[name, default: [:]]
                continue
            }
            guard let section = current, let separator = trimmed.firstIndex(where: { $0 == "=" || $0 == ":" }) else {
                throw Self.malformed(path, line: index + 1)
            }
            let name = trimmed[..<separator].trimmingCharacters(in: .whitespaces).lowercased()
            let value = trimmed[trimmed.index(after: separator)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { throw Self.malformed(path, line: index + 1) }
            sections[section, default: [:]][name] = value
        }
        self.sections = sections
    }

    /// The file at `path`, or nil when there is none.
    public static func read(_ path: String) throws -> AWSProfileFile? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Diagnostic.storage(.credentials, "cannot be read", subject: path)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw Diagnostic.storage(.credentials, "is not UTF-8 text", subject: path)
        }
        return try AWSProfileFile(path: path, text: text)
    }

    private static func malformed(_ path: String, line: Int) -> Diagnostic {
        Diagnostic(
            .storage(.credentials), "expected '[section]' or 'name = value' (the line is not shown: it may hold a secret)",
            file: path, places: [.line(line, column: 1)])
    }
}

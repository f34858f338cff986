import Foundation
import SystemSupport

/// Where a signing identity's password comes from: an environment variable (`--password-env VAR`)
/// or a file (`--password-file F`). Never the command line, where other users could read it.
public enum PasswordSource: Sendable, Equatable {
    /// The value of the environment variable with this name.
    case environment(String)
    /// The contents of the file at this path, with one trailing newline (`\n` or `\r\n`) removed.
    case file(String)

    /// Reads the password; errors name the variable or file, never the value.
    public func read(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        switch self {
        case .environment(let name):
            guard let value = environment[name] else {
                throw Diagnostic.codeSign(.identityInvalid, "environment variable \(name) is not set", location: "password")
            }
            return value
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw Diagnostic.codeSign(.unreadable, "cannot read the password file", file: path)
            }
            // Bytes, not characters: "\r\n" is one Character in Swift.
            var bytes = [UInt8](data)
            if bytes.last == 0x0a { bytes.removeLast() }
            if bytes.last == 0x0d, data.last == 0x0a { bytes.removeLast() }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}

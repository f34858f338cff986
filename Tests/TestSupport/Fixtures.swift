import Foundation
import Testing

/// Finds the real files made by Apple's tools in `../shared/fixtures/real` (or `ADHOCBUILD_FIXTURES`).
///
/// Tests that need them are skipped with a message when the folder is absent, and fail
/// instead when `ADHOCBUILD_REQUIRE_FIXTURES=1` (as CI sets).
public enum Fixtures {
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static let folder: URL = {
        if let override = ProcessInfo.processInfo.environment["ADHOCBUILD_FIXTURES"] {
            return URL(fileURLWithPath: override)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/real")
    }()

    public static var isAvailable: Bool { FileManager.default.fileExists(atPath: folder.appendingPathComponent("SOURCES.md").path) }
    public static var isRequired: Bool { ProcessInfo.processInfo.environment["ADHOCBUILD_REQUIRE_FIXTURES"] == "1" }

    /// Use as a trait: runs when the fixtures are present or required.
    public static var enabled: ConditionTrait {
        .enabled(if: isAvailable || isRequired, "real fixtures not found at \(folder.path); set ADHOCBUILD_FIXTURES")
    }

    /// The files in one subfolder (`plist-binary`, `pbxproj`, …); records a failure when required and absent.
    public static func files(in subfolder: String, sourceLocation: SourceLocation = #_sourceLocation) -> [URL] {
        guard isAvailable else {
            Issue.record(
                "real fixtures are required (ADHOCBUILD_REQUIRE_FIXTURES=1) but \(folder.path) is missing",
                sourceLocation: sourceLocation)
            return []
        }
        let url = folder.appendingPathComponent(subfolder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.sorted().map { url.appendingPathComponent($0) }
    }

    public static func url(_ subfolder: String, _ name: String) -> URL {
        folder.appendingPathComponent(subfolder).appendingPathComponent(name)
    }
}

/// Runs `body` with a fresh temporary folder, which is removed afterwards whatever happens: the one
/// way tests get a scratch folder.
public func withTemporaryFolder<T>(_ body: (TemporaryFolder) throws -> T) throws -> T {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    return try body(folder)
}

/// A fresh temporary folder, removed by `remove()` (tests use ``withTemporaryFolder(_:)``).
public struct TemporaryFolder {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("adhocbuild-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    public func write(_ name: String, _ text: String) throws -> String {
        let target = path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: target))
        return target
    }

    public func write(_ name: String, _ data: Data) throws -> String {
        let target = path(name)
        try data.write(to: URL(fileURLWithPath: target))
        return target
    }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}

/// A test's own setup failing (a tool missing or failing), with a message saying what to do.
public struct SetupFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Runs an external program and captures its output.
public struct ProcessResult {
    public var status: Int32
    public var stdout: Data
    public var stderr: Data
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }

    /// Runs `executable` in `folder` (default: this process's working folder).
    public static func run(
        _ executable: String, _ arguments: [String], input: Data? = nil,
        environment: [String: String]? = nil, in folder: String? = nil
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder, isDirectory: true) }
        let outPipe = Pipe(), errPipe = Pipe(), inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = inPipe
        try process.run()
        if let input { inPipe.fileHandleForWriting.write(input) }
        try inPipe.fileHandleForWriting.close()
        let err = readInBackground(errPipe.fileHandleForReading)
        let out = outPipe.fileHandleForReading.readDataToEndOfFile()
        let errData = err()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus, stdout: out, stderr: errData)
    }

    /// Starts reading `handle` to its end on another thread (so a pipe the program fills never blocks
    /// it); the function returned waits for the end and gives what was read.
    public static func readInBackground(_ handle: FileHandle) -> () -> Data {
        final class Box: @unchecked Sendable { var data = Data() }
        let box = Box()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            box.data = handle.readDataToEndOfFile()
            group.leave()
        }
        return {
            group.wait()
            return box.data
        }
    }

    /// The absolute path of a program on PATH, or nil.
    public static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// The built `adhocbuild` executable, for tests that run it as a user would.
public enum AdhocBuildBinary {
    public static var path: String {
        if let override = ProcessInfo.processInfo.environment["ADHOCBUILD_BIN"] { return override }
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for folder in [besideTests, besideTests.deletingLastPathComponent()] {
            let candidate = folder.appendingPathComponent("adhocbuild").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return Fixtures.packageRoot.appendingPathComponent(".build/debug/adhocbuild").path
    }

    /// Runs `adhocbuild` with `arguments` in `folder` (default: this process's working folder),
    /// without colour, with `extraEnvironment` added to this process's.
    public static func run(
        _ arguments: [String], input: Data? = nil, in folder: String? = nil,
        extraEnvironment: [String: String] = [:]
    ) throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment.merging(extraEnvironment) { $1 }
        environment["NO_COLOR"] = "1"
        if let folder { environment["PWD"] = folder }
        return try ProcessResult.run(path, arguments, input: input, environment: environment, in: folder)
    }
}

extension TemporaryFolder {
    /// Every file under the folder with its bytes, to assert that a failed command changed nothing.
    public func snapshot() -> [String: Data] {
        var result: [String: Data] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: url.path) else { return result }
        while let relative = enumerator.nextObject() as? String {
            let full = url.appendingPathComponent(relative).path
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue {
                result[relative] = FileManager.default.contents(atPath: full)
            }
        }
        return result
    }

    /// Creates `relative`'s parent folders and writes `data` there.
    @discardableResult
    public func create(_ relative: String, _ data: Data) throws -> String {
        let target = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: target)
        return target.path
    }
}

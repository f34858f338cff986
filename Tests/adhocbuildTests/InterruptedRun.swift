import Foundation
import TestSupport

/// A run of the `adhocbuild` binary that its test hook (`ADHOCBUILD_TEST_PAUSE_AT`) stops at a named
/// point, sent a signal there: how a test interrupts a command at one step and no other.
struct InterruptedRun {
    var status: Int32
    /// False when the process exited by itself, never reaching the point (the signal was not sent).
    var paused: Bool
    /// True when the process ended by the signal itself rather than by exiting.
    var killedBySignal: Bool
    var stdout: String
    var stderr: String

    /// What the hook writes on standard error once the process waits at its point.
    static let pausedLine = "adhocbuild test hook: paused at "

    /// Runs `adhocbuild` with `arguments`, waits until it is paused at the first point whose name starts
    /// with `point` (`step:Package`, `commit:ShoutOut.ipa`), sends `signal` and waits for it to end.
    static func run(
        _ arguments: [String], pauseAt point: String, signal: Int32, in folder: String? = nil, extraEnvironment: [String: String] = [:]
    ) throws -> InterruptedRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: AdhocBuildBinary.path)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.merging(extraEnvironment) { $1 }
        environment["NO_COLOR"] = "1"
        environment["ADHOCBUILD_TEST_PAUSE_AT"] = point
        process.environment = environment
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder, isDirectory: true) }
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let out = ProcessResult.readInBackground(outPipe.fileHandleForReading)
        let errHandle = errPipe.fileHandleForReading
        var stderr = Data()
        var paused = false
        while true {
            let chunk = errHandle.availableData
            if chunk.isEmpty { break }
            stderr.append(chunk)
            if String(decoding: stderr, as: UTF8.self).contains(pausedLine) {
                paused = true
                break
            }
        }
        if paused { kill(process.processIdentifier, signal) }
        stderr.append(errHandle.readDataToEndOfFile())
        let stdout = out()
        process.waitUntilExit()
        return InterruptedRun(
            status: process.terminationStatus, paused: paused, killedBySignal: process.terminationReason == .uncaughtSignal,
            stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Standard error without the hook's own line.
    var messages: String {
        stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix(Self.pausedLine) }.joined(separator: "\n")
    }
}

import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import AdhocBuildKit

/// Issue 31, messages: `release --out ShoutOut.app/dist` copied the app into its own copy until the
/// path was too long, and named the temporary folder 58 times in a raw Foundation dump.
@Suite struct ReleaseMessagesTests {
    func options(_ folder: TemporaryFolder, app: String, out: String) -> ReleasePipeline.Options {
        var options = ReleasePipeline.Options(environment: "Staging", input: app, baseURL: "https://builds.example.com/", out: out)
        options.environmentsFolder = SampleEnvironments.path
        options.processEnvironment = [:]
        return options
    }

    /// Refused by the input check, before anything is copied or made, in one line naming both paths.
    @Test func distInsideTheAppIsRefusedBeforeAnythingIsWritten() throws {
        try withTemporaryFolder { folder in
            let app = folder.path("in/ShoutOut.app")
            try FileManager.default.createDirectory(atPath: folder.path("in"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: ReleasePipelineTests.exampleApp, toPath: app)
            try FileManager.default.createSymbolicLink(atPath: folder.path("into"), withDestinationPath: app + "/Frameworks")
            let before = folder.snapshot()
            for out in [app + "/dist", app + "/Frameworks/../dist", folder.path("into/dist"), app] {
                var steps: [String] = []
                do {
                    let collected = Locked<[String]>([])
                    var pipeline = ReleasePipeline(options: options(folder, app: app, out: out))
                    pipeline.onStep = { step, finished in if !finished { collected.withLock { $0.append(step) } } }
                    defer { steps = collected.withLock { $0 } }
                    _ = try pipeline.run()
                    Issue.record("\(out): released into the app")
                } catch let failure as Diagnostic where failure.code == .build(.stepFailed) {
                    #expect(failure.subject == "Check the input files", "\(out): \(failure)")
                    let relation = out == app ? "is the input" : "is inside the input"
                    #expect(
                        failure.message == "\(out): \(relation) \(app), which writing it would change; write it somewhere else",
                        "\(failure)")
                    // The step is named once.
                    #expect(failure.description.components(separatedBy: "Check the input files").count == 2)
                }
                #expect(!steps.contains("Copy the build"), "\(out): \(steps)")
                #expect(folder.snapshot() == before, "\(out): the app changed")
            }
        }
    }

    /// A socket in the app failed the copy with `(NSCocoaErrorDomain error 512.)`; the input check
    /// names it before anything is copied.
    @Test func aFileThatIsNotAFileFolderOrLinkIsNamedBeforeTheCopy() throws {
        try withTemporaryFolder { folder in
            let app = folder.path("ShoutOut.app")
            try FileManager.default.copyItem(atPath: ReleasePipelineTests.exampleApp, toPath: app)
            let made = try ProcessResult.run(
                "/usr/bin/python3", ["-c", "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", app + "/sock"])
            try #require(made.status == 0, "\(made.stderrText)")
            do {
                _ = try ReleasePipeline(options: options(folder, app: app, out: folder.path("dist"))).run()
                Issue.record("released an app holding a socket")
            } catch let failure as Diagnostic where failure.code == .build(.stepFailed) {
                #expect(failure.subject == "Check the input files", "\(failure)")
                #expect(failure.message == "\(app)/sock: is neither a file, a folder nor a symbolic link", "\(failure)")
            }
            #expect(!FileManager.default.fileExists(atPath: folder.path("dist")))
        }
    }
}

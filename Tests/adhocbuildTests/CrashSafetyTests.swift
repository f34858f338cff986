import Foundation
import TestSupport
import Testing

/// SIGKILL at random moments while commands write: every target is always the old file or the
/// complete new one, and the next run clears the temporary files the killed ones left.
@Suite(.serialized) struct CrashSafetyTests {
    static let rounds = 50

    /// Starts adhocbuild and kills it after a random delay (it may also finish first).
    func runAndKill(_ arguments: [String], within microseconds: UInt32) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: AdhocBuildBinary.path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(UInt32.random(in: 0...microseconds))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func leftovers(_ folder: String) -> [String] {
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let name = enumerator?.nextObject() as? String {
            if (name as NSString).lastPathComponent.hasPrefix(".adhocbuild-tmp-") { found.append(name) }
        }
        return found
    }

    func value(_ file: String, _ keyPath: String) throws -> String {
        let result = try AdhocBuildBinary.run(["plist", "get", file, keyPath])
        try #require(result.status == 0, "\(file) is damaged: \(result.stderrText)")
        return result.stdoutText.trimmingCharacters(in: .newlines)
    }

    @Test func plistSetAndVersionBumpLeaveOldOrNewNeverHalf() throws {
        try withTemporaryFolder { folder in
            var big = "<plist version=\"1.0\"><dict><key>Value</key><string>v0</string><key>CFBundleVersion</key><string>1</string>"
            for index in 0..<40_000 { big += "<key>k\(index)</key><string>filler value number \(index)</string>" }
            let plist = try folder.write("Info.plist", big + "</dict></plist>")
            var current = "v0"
            for round in 1...Self.rounds {
                try runAndKill(["plist", "set", plist, "Value", "v\(round)"], within: 300_000)
                let seen = try value(plist, "Value")
                #expect(seen == current || seen == "v\(round)", "round \(round): \(seen)")
                current = seen
            }
            var build = 1
            for round in 1...Self.rounds {
                try runAndKill(["version", "bump", "build", "--to", String(round * 10), "--plist", plist], within: 300_000)
                let seen = Int(try value(plist, "CFBundleVersion")) ?? -1
                #expect(seen == build || seen == round * 10, "round \(round): \(seen)")
                build = seen
            }
            // The next (uninterrupted) run clears what the killed ones left.
            #expect(try AdhocBuildBinary.run(["plist", "set", plist, "Value", "final"]).status == 0)
            #expect(leftovers(folder.url.path) == [])
        }
    }

    @Test func envApplyAndPackageLeaveOldOrNewNeverHalf() throws {
        try withTemporaryFolder { folder in
            let environments = Fixtures.packageRoot.appendingPathComponent("environments").path
            let app = folder.path("ShoutOut.app")
            try FileManager.default.copyItem(
                atPath: Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut/ShoutOut.app").path, toPath: app)
            var bytes = [UInt8](repeating: 0, count: 6 << 20)
            for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 13) }
            try Data(bytes).write(to: URL(fileURLWithPath: app + "/Payload.bin"))
            let identifiers = ["com.example.shoutout.staging", "com.example.shoutout.qa", "com.example.shoutout"]
            for round in 1...Self.rounds {
                let environment = ["Staging", "QA", "Release"][round % 3]
                try runAndKill(["env", "apply", environment, "--app", app, "--environments", environments], within: 200_000)
                #expect(identifiers.contains(try value(app + "/Info.plist", "CFBundleIdentifier")))
                if FileManager.default.fileExists(atPath: app + "/environment.plist") {
                    _ = try value(app + "/environment.plist", "LogLevel")
                }
            }
            let ipa = folder.path("ShoutOut.ipa")
            let unzip = try #require(ProcessResult.which("unzip"))
            for round in 1...Self.rounds {
                try runAndKill(["package", app, "-o", ipa, "-q"], within: 400_000)
                if FileManager.default.fileExists(atPath: ipa) {
                    let check = try ProcessResult.run(unzip, ["-tq", ipa])
                    #expect(check.status == 0, "round \(round): a damaged ipa was left: \(check.stdoutText)")
                }
            }
            #expect(try AdhocBuildBinary.run(["env", "apply", "Staging", "--app", app, "--environments", environments]).status == 0)
            #expect(try AdhocBuildBinary.run(["package", app, "-o", ipa, "-q"]).status == 0)
            #expect(leftovers(folder.url.path) == [])
        }
    }

    /// The next run tidies up even when it has nothing to write (the killed run may have been the
    /// one that would have changed something).
    @Test func anEnvApplyThatChangesNothingStillRemovesLeftovers() throws {
        try withTemporaryFolder { folder in
            let environments = Fixtures.packageRoot.appendingPathComponent("environments").path
            let app = folder.path("ShoutOut.app")
            try FileManager.default.copyItem(
                atPath: Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut/ShoutOut.app").path, toPath: app)
            let apply = ["env", "apply", "Staging", "--app", app, "--environments", environments]
            #expect(try AdhocBuildBinary.run(apply).status == 0)
            let before = folder.snapshot()
            try folder.create("ShoutOut.app/.adhocbuild-tmp-Info.plist-\(Int32.max - 1).7-dead", Data("half".utf8))
            let again = try AdhocBuildBinary.run(apply)
            #expect(again.status == 0, "\(again.stderrText)")
            #expect(again.stdoutText.contains("unchanged"))
            #expect(leftovers(folder.url.path) == [])
            #expect(folder.snapshot() == before)
        }
    }

}

import Foundation
import TestSupport
import Testing

/// The property behind issue 31's first class: whatever a build holds, a command changes only the
/// outputs the user named. Every command that writes runs on every hostile build, in a temporary
/// folder beside an `outside` folder the build's links point to, and a listing of the whole
/// folder (sizes and SHA-256 of every file, links' targets) before and after may differ only under
/// the command's named outputs.
@Suite(Fixtures.enabled, .serialized) struct HostileWritesPropertyTests {
    /// A hostile build: how it is made from a copy of the example app at `app`, `outside` being the
    /// sibling folder its links lead to.
    struct Hostility: Sendable, CustomStringConvertible {
        var description: String
        var make: @Sendable (_ app: String, _ outside: String) throws -> Void
    }

    static let hostilities: [Hostility] = [
        Hostility(description: "Info.plist links to a file outside") { app, outside in
            try HostileBuild.link(app + "/Info.plist", to: outside + "/Info.plist")
        },
        Hostility(description: "environment.plist links to a file outside") { app, outside in
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            try Data("<plist><dict/></plist>".utf8).write(to: URL(fileURLWithPath: outside + "/environment.plist"))
            try HostileBuild.link(app + "/environment.plist", to: outside + "/environment.plist")
        },
        Hostility(description: "an extension links to a folder outside") { app, outside in
            try FileManager.default.createDirectory(atPath: outside + "/Widget.appex", withIntermediateDirectories: true)
            try HostileBuild.appexPlist().write(to: URL(fileURLWithPath: outside + "/Widget.appex/Info.plist"))
            try FileManager.default.createDirectory(atPath: app + "/PlugIns", withIntermediateDirectories: true)
            try HostileBuild.link(app + "/PlugIns/Widget.appex", to: outside + "/Widget.appex")
        },
        Hostility(description: "a resource links to an absolute path outside") { app, outside in
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            try Data("secret".utf8).write(to: URL(fileURLWithPath: outside + "/secret.txt"))
            try HostileBuild.link(app + "/secret.txt", to: outside + "/secret.txt")
        },
        Hostility(description: "a resource climbs out by a relative link") { app, outside in
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            try Data("secret".utf8).write(to: URL(fileURLWithPath: outside + "/secret.txt"))
            try FileManager.default.createSymbolicLink(atPath: app + "/secret.txt", withDestinationPath: "../../outside/secret.txt")
        },
        Hostility(description: "Frameworks links to a folder outside") { app, outside in
            try HostileBuild.link(app + "/Frameworks", to: outside + "/Frameworks")
        }
    ]

    /// Every command that writes, as run on `app`, and the outputs it names (relative to the folder).
    static func commands(app: String, folder: TemporaryFolder, made: TestIdentities, profile: String) -> [(
        arguments: [String], outputs: [String]
    )] {
        let appName = String(app.dropFirst(folder.url.path.count + 1))
        let release = [
            "release", "--env", "Staging", "--app", app, "--environments", HostileBuild.environments,
            "--base-url", "https://builds.example.com/", "--ci", "none", "--profile", profile
        ]
        let signing = ["--sign-identity", made.rsa, "--sign-password-file", made.passwordFile, "--sign-profile", profile]
        return [
            (["icon", "extract", app, "-o", folder.path("out/icons")], ["out/icons"]),
            (["package", app, "-o", folder.path("out/App.ipa")], ["out/App.ipa"]),
            (
                [
                    "codesign", "sign", app, "--identity", made.rsa, "--password-file", made.passwordFile, "--profile", profile, "-o",
                    folder.path("out/signed/ShoutOut.app")
                ], ["out/signed"]
            ),
            (release + ["--out", folder.path("out/dist")], ["out/dist"]),
            (release + signing + ["--out", folder.path("out/signed-dist")], ["out/signed-dist"]),
            (["env", "apply", "Staging", "--app", app, "--environments", HostileBuild.environments], [appName]),
            (["version", "bump", "build", app, "--to", "99"], [appName]),
            (["env", "apply", "QA", "--app", app, "--environments", HostileBuild.environments] + signing, [appName])
        ]
    }

    @Test(arguments: hostilities) func noCommandWritesOutsideItsNamedOutputs(_ hostility: Hostility) throws {
        try withTemporaryFolder { folder in
            let (made, profile) = try CodeSignSignCLITests.setUp(folder)
            let app = try HostileBuild.exampleApp(at: folder.path("in/ShoutOut.app"))
            try hostility.make(app, folder.path("outside"))
            try FileManager.default.createDirectory(atPath: folder.path("out"), withIntermediateDirectories: true)
            for command in Self.commands(app: app, folder: folder, made: made, profile: profile) {
                let before = try HostileBuild.listing(folder.url.path)
                let result = try AdhocBuildBinary.run(command.arguments)
                #expect(result.status == 0 || result.status == 1, "\(command.arguments): \(result.stderrText)")
                let stray = HostileBuild.changed(before, try HostileBuild.listing(folder.url.path)).filter { path in
                    !command.outputs.contains { path == $0 || path.hasPrefix($0 + "/") }
                }
                #expect(stray == [], "\(hostility): \(command.arguments.prefix(2).joined(separator: " ")) wrote outside its outputs")
            }
        }
    }

    /// The same for a build whose asset catalog names its icon set `../zzzz`, as an app and as an ipa.
    @Test func iconExtractFromACatalogNamedAsAPathWritesOnlyItsOutput() throws {
        try withTemporaryFolder { folder in
            let (app, ipa) = try HostileBuild.catalogNamedAsAPath(in: folder.path("in"))
            for (input, output) in [(app, "out/app"), (ipa, "out/ipa")] {
                let before = try HostileBuild.listing(folder.url.path)
                let result = try AdhocBuildBinary.run(["icon", "extract", input, "-o", folder.path(output)])
                #expect(result.status == 0, "\(result.stderrText)")
                let stray = HostileBuild.changed(before, try HostileBuild.listing(folder.url.path)).filter {
                    $0 != output && !$0.hasPrefix(output + "/") && $0 != "out"
                }
                #expect(stray == [], "\(input)")
            }
        }
    }
}

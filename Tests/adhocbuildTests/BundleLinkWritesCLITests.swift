import Foundation
import TestSupport
import Testing

/// Issue 31, writes outside what the user named: a bundle's own files are changed only inside the bundle.
@Suite(Fixtures.enabled) struct BundleLinkWritesCLITests {
    /// `env apply`, `version bump` and `release` refuse an app whose Info.plist is a link to a file
    /// outside it, or whose extension is a link to a folder outside it, naming the link and where it
    /// leads; the outside files and the app stay as they were.
    @Test func aBundleFileThatIsALinkLeadingOutIsNotChanged() throws {
        try withTemporaryFolder { folder in
            let outside = folder.path("outside")
            let linkedInfo = try HostileBuild.exampleApp(at: folder.path("in/Info/ShoutOut.app"))
            try HostileBuild.link(linkedInfo + "/Info.plist", to: outside + "/Info.plist")
            let linkedAppex = try HostileBuild.exampleApp(at: folder.path("in/Appex/ShoutOut.app"))
            try folder.create("outside/Widget.appex/Info.plist", HostileBuild.appexPlist())
            try FileManager.default.createDirectory(atPath: linkedAppex + "/PlugIns", withIntermediateDirectories: true)
            try HostileBuild.link(linkedAppex + "/PlugIns/Widget.appex", to: outside + "/Widget.appex")
            let profile = folder.path("example.mobileprovision")
            let made = try ProcessResult.run(
                "/bin/bash", [Fixtures.packageRoot.appendingPathComponent("scripts/make-example-profile.sh").path, profile])
            try #require(made.status == 0)
            let before = try HostileBuild.listing(folder.url.path)
            let cases = [
                (linkedInfo, "Info.plist", outside + "/Info.plist"),
                (linkedAppex, "PlugIns/Widget.appex", outside + "/Widget.appex")
            ]
            for (app, link, target) in cases {
                let problem = "\(link): is a symbolic link to '\(target)', which leads outside the bundle"
                let apply = try AdhocBuildBinary.run(["env", "apply", "Staging", "--app", app, "--environments", HostileBuild.environments])
                #expect(apply.status == 1)
                #expect(apply.stderrText.hasPrefix("error: \(app)/\(problem)"), "\(apply.stderrText)")
                if link == "Info.plist" {
                    let bump = try AdhocBuildBinary.run(["version", "bump", "build", app, "--to", "99"])
                    #expect(bump.status == 1)
                    #expect(bump.stderrText.hasPrefix("error: \(app)/\(problem)"), "\(bump.stderrText)")
                }
                let release = try AdhocBuildBinary.run([
                    "release", "--env", "Staging", "--app", app, "--environments", HostileBuild.environments,
                    "--base-url", "https://builds.example.com/", "--out", folder.path("dist"), "--profile", profile, "--ci", "none"
                ])
                // Release refuses the link when it checks its input, before the copy it would change.
                #expect(release.status == 1)
                #expect(release.stderrText.contains("\(link): is a symbolic link to '\(target)', "), "\(release.stderrText)")
            }
            // Only release's named output folder may be new (made for its lock, left empty).
            let changed = HostileBuild.changed(before, try HostileBuild.listing(folder.url.path))
            #expect(changed == [] || changed == ["dist"])
        }
    }
}

import Foundation
import TestSupport
import Testing

/// Issue 31, writes outside what the user named: a bundle with a link leading out is neither signed nor packaged.
@Suite(Fixtures.enabled) struct SigningLinksCLITests {
    /// A bundle holding `passwd -> /etc/passwd`, or a link that climbs out of it, is not signed:
    /// `codesign sign` and `release --sign-identity` refuse it naming the link, as `package` does.
    @Test func aBundleWithALinkLeadingOutIsNeitherSignedNorReleased() throws {
        try withTemporaryFolder { folder in
            let (made, profile) = try CodeSignSignCLITests.setUp(folder)
            let absolute = try HostileBuild.exampleApp(at: folder.path("in/Absolute/ShoutOut.app"))
            #expect(symlink("/etc/passwd", absolute + "/passwd") == 0)
            let climbing = try HostileBuild.exampleApp(at: folder.path("in/Climbing/ShoutOut.app"))
            try folder.create("outside/secret.txt", Data("secret".utf8))
            #expect(symlink("../../../outside/secret.txt", climbing + "/secret.txt") == 0)
            let before = try HostileBuild.listing(folder.url.path)
            for (app, link, problem) in [
                (absolute, "passwd", "is a symbolic link to '/etc/passwd', outside the bundle"),
                (climbing, "secret.txt", "is a symbolic link to '../../../outside/secret.txt', which points outside the bundle")
            ] {
                let sign = try AdhocBuildBinary.run([
                    "codesign", "sign", app, "--identity", made.rsa, "--password-file", made.passwordFile, "--profile", profile,
                    "-o", folder.path("signed/ShoutOut.app")
                ])
                #expect(sign.status == 1)
                #expect(sign.stderrText.hasPrefix("error: \(app)/\(link): \(problem)"), "\(sign.stderrText)")
                #expect(sign.stderrText.hasSuffix("; adhocbuild does not sign it\n"), "\(sign.stderrText)")
                let release = try AdhocBuildBinary.run([
                    "release", "--env", "Staging", "--app", app, "--environments", HostileBuild.environments,
                    "--base-url", "https://builds.example.com/", "--out", folder.path("dist"), "--ci", "none",
                    "--sign-identity", made.rsa, "--sign-password-file", made.passwordFile, "--sign-profile", profile
                ])
                #expect(release.status == 1)
                #expect(release.stderrText.contains("\(link): \(problem)"), "\(release.stderrText)")
                let package = try AdhocBuildBinary.run(["package", app, "-o", folder.path("out.ipa")])
                #expect(package.status == 1)
                #expect(package.stderrText.contains("\(link): \(problem)"), "\(package.stderrText)")
            }
            // Only release's named output folder may be new (made for its lock, left empty).
            let changed = HostileBuild.changed(before, try HostileBuild.listing(folder.url.path))
            #expect(changed == [] || changed == ["dist"])
        }
    }
}

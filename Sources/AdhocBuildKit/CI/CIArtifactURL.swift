import Foundation

/// Where a CI server serves a build's artifacts: the base URL `release --ci teamcity|jenkins` uses
/// when none is given, for a DIST folder published as the build's artifact.
public enum CIArtifactURL {
    /// TeamCity's guest download address for `out` published by build `buildID` of configuration
    /// `buildTypeID` (TeamCity does not put these in the environment).
    public static func teamCity(server: String, buildTypeID: String, buildID: String, out: String) -> String {
        folder(server) + "guestAuth/repository/download/\(buildTypeID)/\(buildID):id/" + (out as NSString).lastPathComponent + "/"
    }

    /// Jenkins' artifact address for `out` under the build at `buildURL` (Jenkins' `BUILD_URL`).
    public static func jenkins(buildURL: String, out: String) -> String {
        folder(buildURL) + "artifact/" + out + "/"
    }

    static func folder(_ url: String) -> String { url.hasSuffix("/") ? url : url + "/" }
}

import Foundation
import PlistKit
import SystemSupport

/// What a release tells the CI server it runs on: TeamCity service messages, a Jenkins
/// properties file, GitHub Actions outputs and step summary, or a GitLab dotenv report.
///
/// Every value goes out encoded for its channel (``TeamCityMessage``, ``JavaProperties``,
/// ``GitHubActions``, ``GitLabDotenv``): values come from the build (a certificate's name, the
/// app's version), and one with a line end must not add a value of its own.
public struct CIReporter: Sendable {
    public var server: CIServer
    public var environment: [String: String]
    /// Where Jenkins properties and the GitLab dotenv report go (default `adhocbuild.properties` / `adhocbuild.env`).
    public var reportFile: String?
    /// Lines to print (service messages); the caller writes them to standard output.
    public var print: @Sendable (String) -> Void

    public init(server: CIServer, environment: [String: String], reportFile: String? = nil, print: @escaping @Sendable (String) -> Void) {
        self.server = server
        self.environment = environment
        self.reportFile = reportFile
        self.print = print
    }

    public func stepStarted(_ step: String) {
        if server == .teamcity { print(TeamCityMessage.single("progressStart", step)) }
    }

    public func stepFinished(_ step: String) {
        if server == .teamcity { print(TeamCityMessage.single("progressFinish", step)) }
    }

    public func failed(_ failure: Diagnostic) {
        if server == .teamcity {
            print(TeamCityMessage.attributes("buildProblem", [("description", failure.description), ("identity", "adhocbuild-release")]))
        }
    }

    /// The values later steps want, by name.
    public static func values(_ result: ReleasePipeline.Result) -> [(String, String)] {
        [
            ("PAGE_URL", result.pageURL), ("INSTALL_URL", result.installURL), ("MANIFEST_URL", result.manifestURL),
            ("IPA", result.ipa), ("VERSION", result.version), ("BUILD", result.build), ("ENVIRONMENT", result.environment),
            ("RELEASE_FOLDER", result.releaseFolder), ("SIGNATURE", result.signature), ("SIGNER", result.signer),
            ("TEAM", result.team), ("CDHASH", result.cdhash)
        ]
    }

    /// The files ``succeeded(_:out:)`` writes or appends to: the Jenkins properties or the GitLab dotenv
    /// report, GitHub's outputs and step summary.
    var reportFiles: [String] {
        switch server {
        case .jenkins: return [reportFile ?? "adhocbuild.properties"]
        case .gitlab: return [reportFile ?? "adhocbuild.env"]
        case .github: return ["GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"].compactMap { environment[$0] }
        case .teamcity, .none: return []
        }
    }

    /// Checks that every report file can be written (no folder in its place, its folder there), so
    /// that a release is not published and then failed by its report: run before the release starts.
    public func checkReportFiles() throws {
        for file in reportFiles {
            _ = try WriteDestination.of(file)
            guard FileIO.kind(of: FileIO.split(file).folder) == .folder else {
                throw Diagnostic.io("cannot be written: its folder does not exist", file: file)
            }
        }
    }

    /// Reports a release. Returns warnings for values the channel cannot carry as they are, which are
    /// left out rather than written changed (GitLab's dotenv has no escapes).
    @discardableResult
    public func succeeded(_ result: ReleasePipeline.Result, out: String) throws -> [Diagnostic] {
        let values = CIReporter.values(result)
        var warnings: [Diagnostic] = []
        switch server {
        case .teamcity:
            print(TeamCityMessage.single("buildNumber", "\(result.version) (\(result.build))"))
            if !result.signatureSummary.isEmpty {
                let status = result.signature == "valid" ? [] : [("status", "WARNING")]
                print(TeamCityMessage.attributes("message", [("text", "Signature: \(result.signatureSummary)")] + status))
            }
            print(TeamCityMessage.single("publishArtifacts", "\(out) => \((out as NSString).lastPathComponent)"))
            for (name, value) in values {
                print(TeamCityMessage.attributes("setParameter", [("name", "adhocbuild." + name.lowercased()), ("value", value)]))
            }
            print(
                TeamCityMessage.attributes(
                    "buildStatus", [("text", "\(result.environment) \(result.version) (\(result.build)): \(result.pageURL)")]))
        case .jenkins:
            let text = values.map { JavaProperties.line("ADHOCBUILD_\($0.0)", $0.1) }.joined(separator: "\n") + "\n"
            try write(Data(text.utf8), to: reportFile ?? "adhocbuild.properties")
        case .github:
            if result.signature != "valid" && !result.signatureSummary.isEmpty {
                print("::warning title=Signature::\(GitHubActions.commandMessage(result.signatureSummary))")
            }
            if let output = environment["GITHUB_OUTPUT"] {
                let names = [
                    "PAGE_URL": "page-url", "INSTALL_URL": "install-url", "MANIFEST_URL": "manifest-url", "IPA": "ipa-path",
                    "VERSION": "version", "BUILD": "build", "ENVIRONMENT": "environment", "RELEASE_FOLDER": "release-folder",
                    "SIGNATURE": "signature", "SIGNER": "signer", "TEAM": "team", "CDHASH": "cdhash"
                ]
                try append(values.map { GitHubActions.output(names[$0.0]!, $0.1) }.joined(), to: output)
            }
            if let summary = environment["GITHUB_STEP_SUMMARY"] {
                try append(
                    """
                    ### \(GitHubActions.markdown(result.environment)) \(GitHubActions.markdown(result.version)) (\(GitHubActions.markdown(result.build)))

                    - Install page: \(UntrustedText.line(result.pageURL))
                    - ipa: `\(UntrustedText.line(result.ipa))`
                    \(result.signatureSummary.isEmpty ? "" : "- Signature: \(GitHubActions.markdown(result.signatureSummary))\n")

                    """, to: summary)
            }
        case .gitlab:
            let file = reportFile ?? "adhocbuild.env"
            var lines: [String] = []
            for (name, value) in values {
                if let line = GitLabDotenv.line("ADHOCBUILD_\(name)", value) {
                    lines.append(line)
                } else {
                    warnings.append(
                        Diagnostic.build(
                            "ADHOCBUILD_\(name) is left out: GitLab's dotenv cannot hold '\(value)' "
                                + "(a control character or a blank at either end)", file: file, severity: .warning))
                }
            }
            try write(Data((lines.joined(separator: "\n") + "\n").utf8), to: file)
        case .none:
            break
        }
        return warnings
    }

    private func write(_ data: Data, to path: String) throws {
        try FileIO.writeAtomically(data, to: path)
    }

    private func append(_ text: String, to path: String) throws {
        try FileIO.append(Data(text.utf8), to: path)
    }
}

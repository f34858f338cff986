import Foundation
import PlistKit
import SystemSupport

/// What a release tells the CI server it runs on: TeamCity service messages, a Jenkins
/// properties file, GitHub Actions outputs and step summary, or a GitLab dotenv report.
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

    public func failed(_ failure: ReleasePipeline.Failure) {
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

    public func succeeded(_ result: ReleasePipeline.Result, out: String) throws {
        let values = CIReporter.values(result)
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
            let text = values.map { "ADHOCBUILD_\($0.0)=\(Self.propertiesEscape($0.1))" }.joined(separator: "\n") + "\n"
            try write(Data(text.utf8), to: reportFile ?? "adhocbuild.properties")
        case .github:
            if result.signature != "valid" && !result.signatureSummary.isEmpty {
                print("::warning title=Signature::\(Self.workflowEscape(result.signatureSummary))")
            }
            if let output = environment["GITHUB_OUTPUT"] {
                let names = [
                    "PAGE_URL": "page-url", "INSTALL_URL": "install-url", "MANIFEST_URL": "manifest-url", "IPA": "ipa-path",
                    "VERSION": "version", "BUILD": "build", "ENVIRONMENT": "environment", "RELEASE_FOLDER": "release-folder",
                    "SIGNATURE": "signature", "SIGNER": "signer", "TEAM": "team", "CDHASH": "cdhash"
                ]
                try append(values.map { "\(names[$0.0]!)=\($0.1)" }.joined(separator: "\n") + "\n", to: output)
            }
            if let summary = environment["GITHUB_STEP_SUMMARY"] {
                try append(
                    """
                    ### \(Self.markdown(result.environment)) \(Self.markdown(result.version)) (\(Self.markdown(result.build)))

                    - Install page: \(result.pageURL)
                    - ipa: `\(result.ipa)`
                    \(result.signatureSummary.isEmpty ? "" : "- Signature: \(Self.markdown(result.signatureSummary))\n")

                    """, to: summary)
            }
        case .gitlab:
            let text = values.map { "ADHOCBUILD_\($0.0)=\($0.1)" }.joined(separator: "\n") + "\n"
            try write(Data(text.utf8), to: reportFile ?? "adhocbuild.env")
        case .none:
            break
        }
    }

    static func propertiesEscape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ":", with: "\\:").replacingOccurrences(
            of: "=", with: "\\=")
    }

    /// A GitHub workflow command's message: `%`, CR and LF escaped.
    static func workflowEscape(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(
            of: "\n", with: "%0A")
    }

    static func markdown(_ text: String) -> String {
        text.replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: "*", with: "\\*").replacingOccurrences(
            of: "_", with: "\\_")
    }

    private func write(_ data: Data, to path: String) throws {
        try FileIO.writeAtomically(data, to: path)
    }

    private func append(_ text: String, to path: String) throws {
        guard
            let handle = FileHandle(forWritingAtPath: path)
                ?? {
                    _ = FileManager.default.createFile(atPath: path, contents: nil)
                    return FileHandle(forWritingAtPath: path)
                }()
        else { throw AdhocBuildError("cannot be written", file: path) }
        defer { try? handle.close() }
        handle.seekToEndOfFile()
        handle.write(Data(text.utf8))
    }
}

import Foundation
import SystemSupport

/// Finds credentials and the region as the AWS CLI and SDKs do, from the environment and the shared
/// files; never from the command line.
///
/// Credentials: `AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY` (+ `AWS_SESSION_TOKEN`) first; else the
/// profile `AWS_PROFILE`, `AWS_DEFAULT_PROFILE` or `default`, in the shared credentials file
/// (`AWS_SHARED_CREDENTIALS_FILE`, default `~/.aws/credentials`, section `[NAME]`) and then the config
/// file (`AWS_CONFIG_FILE`, default `~/.aws/config`, section `[profile NAME]` or `[default]`).
/// Region: `AWS_REGION`, `AWS_DEFAULT_REGION`, then the profile's `region` in the config file.
public struct AWSConfiguration: Sendable {
    public let environment: [String: String]

    /// `environment`: the variables to read (this process's by default; tests pass their own).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// The profile asked for: `AWS_PROFILE`, `AWS_DEFAULT_PROFILE`, else `default`.
    public var profile: String { value("AWS_PROFILE") ?? value("AWS_DEFAULT_PROFILE") ?? "default" }

    /// Whether a profile was named in the environment (then a missing profile is an error).
    var profileIsExplicit: Bool { value("AWS_PROFILE") != nil || value("AWS_DEFAULT_PROFILE") != nil }

    /// The shared credentials file's path.
    public var credentialsFile: String { value("AWS_SHARED_CREDENTIALS_FILE").map(expandHome) ?? home + "/.aws/credentials" }

    /// The config file's path.
    public var configFile: String { value("AWS_CONFIG_FILE").map(expandHome) ?? home + "/.aws/config" }

    /// The credentials to sign with; an error saying where it looked when there are none, or when
    /// what it found is incomplete.
    public func credentials() throws -> AWSCredentials {
        if let accessKey = value("AWS_ACCESS_KEY_ID") {
            guard let secret = value("AWS_SECRET_ACCESS_KEY") else {
                throw Diagnostic.storage(.credentials, "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not")
            }
            return AWSCredentials(
                accessKeyID: accessKey, secretAccessKey: SecretText(secret), sessionToken: value("AWS_SESSION_TOKEN").map(SecretText.init),
                source: "environment")
        }
        if value("AWS_SECRET_ACCESS_KEY") != nil {
            throw Diagnostic.storage(.credentials, "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not")
        }
        let name = profile
        var foundProfile = false
        let files: [(AWSProfileFile?, String)] = [
            (try AWSProfileFile.read(credentialsFile), name),
            (try AWSProfileFile.read(configFile), name == "default" ? "default" : "profile \(name)")
        ]
        for case (let file?, let section) in files {
            guard let values = file.sections[section] ?? (section == "default" ? file.sections["profile default"] : nil) else { continue }
            foundProfile = true
            if let credentials = try credentials(values, profile: name, file: file.path) { return credentials }
        }
        if profileIsExplicit && !foundProfile {
            throw Diagnostic.storage(
                .credentials, "profile '\(name)' is in neither \(credentialsFile) nor \(configFile)",
                hint: "check AWS_PROFILE, or set AWS_SHARED_CREDENTIALS_FILE")
        }
        throw Diagnostic.storage(
            .credentials,
            "no AWS credentials: AWS_ACCESS_KEY_ID is not set and profile '\(name)' has no aws_access_key_id in \(credentialsFile) or \(configFile)",
            hint: "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE")
    }

    /// The region to sign for, or nil when none is configured.
    public func region() throws -> String? {
        if let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") { return region }
        guard let config = try AWSProfileFile.read(configFile) else { return nil }
        let section = profile == "default" ? "default" : "profile \(profile)"
        return config.sections[section]?["region"].flatMap { $0.isEmpty ? nil : $0 }
    }

    private func credentials(_ values: [String: String], profile: String, file: String) throws -> AWSCredentials? {
        let source = "profile '\(profile)' in \(file)"
        guard let accessKey = values["aws_access_key_id"], !accessKey.isEmpty else {
            if values["aws_secret_access_key"] != nil {
                throw Diagnostic.storage(
                    .credentials, "profile '\(profile)' has aws_secret_access_key but no aws_access_key_id", subject: file)
            }
            if let other = ["role_arn", "credential_process", "sso_session", "sso_start_url", "web_identity_token_file"].first(where: {
                values[$0] != nil
            }) {
                throw Diagnostic.storage(
                    .credentials, "profile '\(profile)' uses \(other), which adhocbuild does not support", subject: file,
                    hint: "export the temporary keys (aws configure export-credentials --format env) before running it")
            }
            return nil
        }
        guard let secret = values["aws_secret_access_key"], !secret.isEmpty else {
            throw Diagnostic.storage(.credentials, "profile '\(profile)' has aws_access_key_id but no aws_secret_access_key", subject: file)
        }
        let token = values["aws_session_token"] ?? values["aws_security_token"]
        return AWSCredentials(
            accessKeyID: accessKey, secretAccessKey: SecretText(secret), sessionToken: token.flatMap { $0.isEmpty ? nil : SecretText($0) },
            source: source)
    }

    /// A variable's value; nil when unset or empty (as botocore treats an empty variable).
    private func value(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    private var home: String { value("HOME") ?? NSHomeDirectory() }

    private func expandHome(_ path: String) -> String { path.hasPrefix("~/") ? home + path.dropFirst() : path }
}

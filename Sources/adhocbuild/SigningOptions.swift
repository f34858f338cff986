import AdhocBuildKit
import CommandLineOptions
import Foundation

/// The `--sign-…` options of `release`, `env apply` and `version bump`: how to re-sign the app after
/// changing it. There is no option for the password itself: it would be visible to other users.
enum SigningOptions {
    static let options: [OptionSpec] = [
        .value(
            "--sign-identity", name: "P12", kind: .path, help: "Re-sign with this identity (certificate and key).",
            defaultDescription: "SignIdentity in adhocbuild.plist, else $\(SigningRequest.identityVariable)"),
        .value(
            "--sign-password-env", name: "VAR", help: "Read the identity's password from this environment variable.",
            defaultDescription: "SignPasswordEnv, else the password in $\(SigningRequest.passwordVariable)"),
        .value(
            "--sign-password-file", name: "FILE", kind: .path, help: "Read the identity's password from this file.",
            defaultDescription: "SignPasswordFile, else $\(SigningRequest.passwordFileVariable)"),
        .value(
            "--sign-profile", name: "[BUNDLE_ID=]FILE",
            help: "A provisioning profile for the bundle with this id; without BUNDLE_ID=, the app's.",
            defaultDescription: "SignProfile and SignProfiles", repeatable: true),
        .value(
            "--sign-entitlements", name: "FILE", kind: .path, help: "Sign the app with these entitlements.",
            defaultDescription: "SignEntitlements, else each profile's")
    ]

    /// The signing flags as given.
    static func flags(_ parsed: ParsedCommand) -> SigningRequest.Flags {
        SigningRequest.Flags(
            identity: parsed.value("sign-identity"), passwordVariable: parsed.value("sign-password-env"),
            passwordFile: parsed.value("sign-password-file"), profiles: parsed.allValues("sign-profile"),
            entitlements: parsed.value("sign-entitlements"))
    }

    /// The variables a signing password may come from for `env apply --app` and `version bump APP`:
    /// `--sign-password-env`'s, and `SignPasswordEnv` of `adhocbuild.plist` in the current folder (an
    /// unreadable file is left to ``request(_:signsApp:)`` to report).
    static func passwordVariables(_ parsed: ParsedCommand, signsApp: Bool) -> [String] {
        let project = signsApp ? (try? ProjectFile.load(nil)) ?? nil : nil
        return [parsed.value("sign-password-env"), project?.values["SignPasswordEnv"]].compactMap { $0 }
    }

    /// The signing request for `env apply --app` and `version bump APP`: the flags, then `adhocbuild.plist`
    /// in the current folder, then the `ADHOCBUILD_SIGN_…` variables. Only an app bundle is signed, so
    /// with another target the flags are a usage error and the other sources are not read.
    static func request(_ parsed: ParsedCommand, signsApp: Bool) throws -> SigningRequest? {
        let flags = flags(parsed)
        guard signsApp else {
            if !flags.isEmpty {
                throw parsed.usageError("--sign-identity and the other signing options re-sign a built app; give the .app")
            }
            return nil
        }
        do {
            return try SigningRequest.resolve(
                flags, projectFile: try ProjectFile.load(nil), processEnvironment: ProcessInfo.processInfo.environment
            ).request
        } catch let mistake as SigningRequest.Mistake {
            throw parsed.usageError(mistake.description)
        }
    }
}

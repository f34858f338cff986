import AdhocBuildKit
import CommandLineOptions
import Foundation

/// The `--sign-…` options of `release`, `env apply` and `version bump`: how to re-sign the app after
/// changing it. There is no option for the password itself: it would be visible to other users.
struct SigningOptions: CommandOptions {
    var identity: String?
    var passwordVariable: String?
    var passwordFile: String?
    var profiles: [String] = []
    var entitlements: String?

    static var declarations: [Declaration<Self>] {
        [
            .option(
                \.identity, "--sign-identity", name: "P12", kind: .path, help: "Re-sign with this identity (certificate and key).",
                defaultDescription: "SignIdentity in adhocbuild.plist, else $\(SigningRequest.identityVariable)"),
            .option(
                \.passwordVariable, "--sign-password-env", name: "VAR",
                help: "Read the identity's password from this environment variable.",
                defaultDescription: "SignPasswordEnv, else the password in $\(SigningRequest.passwordVariable)"),
            .option(
                \.passwordFile, "--sign-password-file", name: "FILE", kind: .path, help: "Read the identity's password from this file.",
                defaultDescription: "SignPasswordFile, else $\(SigningRequest.passwordFileVariable)"),
            .repeated(
                \.profiles, "--sign-profile", name: "[BUNDLE_ID=]FILE",
                help: "A provisioning profile for the bundle with this id; without BUNDLE_ID=, the app's.",
                defaultDescription: "SignProfile and SignProfiles"),
            .option(
                \.entitlements, "--sign-entitlements", name: "FILE", kind: .path, help: "Sign the app with these entitlements.",
                defaultDescription: "SignEntitlements, else each profile's")
        ]
    }

    /// The signing flags as given.
    var flags: SigningRequest.Flags {
        SigningRequest.Flags(
            identity: identity, passwordVariable: passwordVariable, passwordFile: passwordFile, profiles: profiles,
            entitlements: entitlements)
    }

    /// The variables a signing password may come from for `env apply --app` and `version bump APP`:
    /// `--sign-password-env`'s, and `SignPasswordEnv` of `adhocbuild.plist` in the current folder (an
    /// unreadable file is left to ``request(signsApp:_:)`` to report).
    func passwordVariables(signsApp: Bool) -> [String] {
        let project = signsApp ? (try? ProjectFile.load(nil, limits: LimitSettings.current.plist)) ?? nil : nil
        return [passwordVariable, project?.values["SignPasswordEnv"]].compactMap { $0 }
    }

    /// The signing request for `env apply --app` and `version bump APP`: the flags, then `adhocbuild.plist`
    /// in the current folder, then the `ADHOCBUILD_SIGN_…` variables. Only an app bundle is signed, so
    /// with another target the flags are a usage error (about `command`) and the other sources are not read.
    func request(signsApp: Bool, _ command: ParsedCommand) throws -> SigningRequest? {
        let flags = flags
        guard signsApp else {
            if !flags.isEmpty {
                throw command.usageError("--sign-identity and the other signing options re-sign a built app; give the .app")
            }
            return nil
        }
        do {
            return try SigningRequest.resolve(
                flags, projectFile: try ProjectFile.load(nil, limits: LimitSettings.current.plist),
                processEnvironment: ProcessInfo.processInfo.environment
            ).request
        } catch let mistake as SigningRequest.Mistake {
            throw command.usageError(mistake.description)
        }
    }
}

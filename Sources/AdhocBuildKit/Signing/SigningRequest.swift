import CodeSign
import Foundation
import SystemSupport

/// How to re-sign an app after `release`, `env apply` or `version bump` changes it: the signing
/// identity (a .p12), where its password comes from, a provisioning profile per bundle id and the
/// app's own, and an entitlements file. The signer consumes it; the commands resolve and check it
/// first (``SigningRequest/resolve(_:projectFile:processEnvironment:)``), so a mistake is reported
/// before anything is changed. The password itself is never held here, only where to read it.
public struct SigningRequest: Sendable, Equatable {
    /// The signing identity: a PKCS#12 file with the certificate and its private key.
    public var identity: String
    /// Where the identity's password comes from: an environment variable or a file, never the command line.
    public var password: PasswordSource
    /// The app's provisioning profile, for the app and any nested bundle without one of its own.
    public var appProfile: String?
    /// Provisioning profiles by the bundle id they are for (an extension's, a Watch app's).
    public var profiles: [String: String]
    /// Entitlements to sign the app with instead of its profile's.
    public var entitlements: String?

    public init(
        identity: String, password: PasswordSource, appProfile: String? = nil, profiles: [String: String] = [:],
        entitlements: String? = nil
    ) {
        self.identity = identity
        self.password = password
        self.appProfile = appProfile
        self.profiles = profiles
        self.entitlements = entitlements
    }

    /// The profile for the bundle with id `bundleID`: its own, else the app's.
    public func profile(for bundleID: String) -> String? { profiles[bundleID] ?? appProfile }

    /// What a command line says about signing, before the project file and the process environment
    /// fill in the rest.
    public struct Flags: Sendable, Equatable {
        /// `--sign-identity P12`.
        public var identity: String?
        /// `--sign-password-env VAR`.
        public var passwordVariable: String?
        /// `--sign-password-file FILE`.
        public var passwordFile: String?
        /// Each `--sign-profile [BUNDLE_ID=]FILE` as given; one without `BUNDLE_ID=` is the app's.
        public var profiles: [String] = []
        /// `--sign-entitlements FILE`.
        public var entitlements: String?

        public init(
            identity: String? = nil, passwordVariable: String? = nil, passwordFile: String? = nil, profiles: [String] = [],
            entitlements: String? = nil
        ) {
            self.identity = identity
            self.passwordVariable = passwordVariable
            self.passwordFile = passwordFile
            self.profiles = profiles
            self.entitlements = entitlements
        }

        /// Whether any signing flag is given.
        public var isEmpty: Bool { self == Flags() }
    }

    /// A mistake in how signing was asked for (two password sources, a bundle id twice, a password
    /// without an identity); the command line reports it as a usage error.
    public struct Mistake: Error, CustomStringConvertible, Sendable, Equatable {
        public var description: String

        public init(description: String) { self.description = description }
    }

    /// The variables a CI secret store can set: the identity's path, the password itself, a password file.
    public static let identityVariable = "ADHOCBUILD_SIGN_IDENTITY"
    public static let passwordVariable = "ADHOCBUILD_SIGN_PASSWORD"
    public static let passwordFileVariable = "ADHOCBUILD_SIGN_PASSWORD_FILE"

    /// The signing settings of `flags`, `projectFile` and `processEnvironment`, strongest first, and
    /// where each came from (what `release --explain` prints); nil when no identity is given anywhere.
    /// The password is never read, only checked to be there.
    ///
    /// - Throws: ``Mistake`` for contradictory or incomplete flags; ``Diagnostic`` naming the file
    ///   for an identity, profile, entitlements or password file that does not exist.
    public static func resolve(
        _ flags: Flags, projectFile: ProjectFile?, processEnvironment: [String: String]
    ) throws -> (request: SigningRequest?, settings: [ReleaseSetting]) {
        var chooser = SettingChooser()
        let request = try resolve(flags, projectFile: projectFile, processEnvironment: processEnvironment, chooser: &chooser)
        return (request, chooser.chosen)
    }

    /// ``resolve(_:projectFile:processEnvironment:)`` with the choices recorded in `chooser`, beside `release`'s other settings.
    static func resolve(
        _ flags: Flags, projectFile project: ProjectFile?, processEnvironment: [String: String], chooser: inout SettingChooser
    ) throws -> SigningRequest? {
        func flag(_ value: String?, _ name: String) -> SettingChooser.Candidate { (value, .flag(name)) }
        func fromProject(_ key: String) -> SettingChooser.Candidate {
            (project?.values[key], .projectFile(file: project?.path ?? ProjectFile.defaultName, key: key))
        }
        func variable(_ name: String) -> SettingChooser.Candidate { (processEnvironment[name], .processEnvironment(name)) }

        let flagProfiles = try parseProfiles(flags.profiles)
        guard
            let identity = chooser.choose(
                "SignIdentity", [flag(flags.identity, "--sign-identity"), fromProject("SignIdentity"), variable(identityVariable)],
                whenUnset: "the app is not re-signed")
        else {
            if flags.passwordVariable != nil || flags.passwordFile != nil || !flags.profiles.isEmpty || flags.entitlements != nil {
                throw Mistake(
                    description:
                        "the signing options need --sign-identity P12 (or SignIdentity in adhocbuild.plist, or \(identityVariable))")
            }
            return nil
        }
        let password = try choosePassword(flags, project: project, processEnvironment: processEnvironment, chooser: &chooser)
        var problems: [Diagnostic] = []
        func mustExist(_ path: String?, _ what: String, _ origin: SettingOrigin?) {
            guard let path, FileIO.kind(of: path) != .file else { return }
            problems.append(Diagnostic.build("no such \(what)" + (origin.map { " (from \($0))" } ?? ""), file: path))
        }
        mustExist(identity, "signing identity", chooser.chosen.last { $0.name == "SignIdentity" }?.origin)
        if case .file(let path) = password { mustExist(path, "password file", chooser.chosen.last?.origin) }
        if case .environment(let name) = password, processEnvironment[name] == nil {
            problems.append(Diagnostic.build("environment variable \(name) is not set; it should hold the signing identity's password"))
        }
        let appProfile = chooser.choose(
            "SignProfile", [flag(flagProfiles.app, "--sign-profile"), fromProject("SignProfile")],
            whenUnset: "the app's own embedded.mobileprovision")
        mustExist(appProfile, "provisioning profile", chooser.chosen.last?.origin)
        var profiles: [String: String] = [:]
        let projectProfiles = project?.dictionaries["SignProfiles"] ?? [:]
        for bundleID in Set(flagProfiles.byBundleID.keys).union(projectProfiles.keys).sorted() {
            let path = chooser.choose(
                "SignProfile[\(bundleID)]",
                [
                    flag(flagProfiles.byBundleID[bundleID], "--sign-profile \(bundleID)="),
                    (
                        projectProfiles[bundleID],
                        .projectFile(file: project?.path ?? ProjectFile.defaultName, key: "SignProfiles:\(bundleID)")
                    )
                ])
            profiles[bundleID] = path
            mustExist(path, "provisioning profile", chooser.chosen.last?.origin)
        }
        let entitlements = chooser.choose(
            "SignEntitlements", [flag(flags.entitlements, "--sign-entitlements"), fromProject("SignEntitlements")],
            whenUnset: "each profile's entitlements")
        mustExist(entitlements, "entitlements file", chooser.chosen.last?.origin)
        if !problems.isEmpty { throw Diagnostics(problems) }
        return SigningRequest(
            identity: identity, password: password, appProfile: appProfile, profiles: profiles, entitlements: entitlements)
    }

    /// The password source, strongest first: the two flags, the project file's two keys, then the two
    /// variables; two sources at one level are a mistake. Shown as the variable's name or the file's
    /// path, never the password.
    static func choosePassword(
        _ flags: Flags, project: ProjectFile?, processEnvironment: [String: String], chooser: inout SettingChooser
    ) throws -> PasswordSource {
        let file = project?.path ?? ProjectFile.defaultName
        let levels: [(variable: String?, file: String?, variableOrigin: SettingOrigin, fileOrigin: SettingOrigin, both: String)] = [
            (
                flags.passwordVariable, flags.passwordFile, .flag("--sign-password-env"), .flag("--sign-password-file"),
                "give --sign-password-env VAR or --sign-password-file FILE, not both"
            ),
            (
                project?.values["SignPasswordEnv"], project?.values["SignPasswordFile"],
                .projectFile(file: file, key: "SignPasswordEnv"), .projectFile(file: file, key: "SignPasswordFile"),
                "\(file) has both SignPasswordEnv and SignPasswordFile; keep one"
            ),
            (
                processEnvironment[passwordVariable] != nil ? passwordVariable : nil, processEnvironment[passwordFileVariable],
                .processEnvironment(passwordVariable), .processEnvironment(passwordFileVariable),
                "both \(passwordVariable) and \(passwordFileVariable) are set; unset one"
            )
        ]
        for level in levels {
            switch (level.variable, level.file) {
            case (let name?, nil):
                chooser.choose("SignPassword", [("environment variable \(name)", level.variableOrigin)])
                return .environment(name)
            case (nil, let path?):
                chooser.choose("SignPassword", [("file \(path)", level.fileOrigin)])
                return .file(path)
            case (.some, .some):
                throw Mistake(description: level.both)
            case (nil, nil):
                continue
            }
        }
        throw Mistake(
            description: "the signing identity needs a password source: --sign-password-env VAR or --sign-password-file FILE "
                + "(or SignPasswordEnv or SignPasswordFile in adhocbuild.plist, or \(passwordVariable) or \(passwordFileVariable))")
    }

    /// `--sign-profile` values split into the app's (no `BUNDLE_ID=`) and those by bundle id; each at most once.
    /// A value that names an existing file is a file, even with `=` in its name.
    public static func parseProfiles(_ values: [String], option: String = "--sign-profile") throws -> (
        app: String?, byBundleID: [String: String]
    ) {
        var app: String?
        var byBundleID: [String: String] = [:]
        for value in values {
            let parts = value.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, !parts[0].isEmpty, !parts[0].contains("/"), FileIO.kind(of: value) != .file {
                let bundleID = String(parts[0])
                guard byBundleID[bundleID] == nil else {
                    throw Mistake(description: "\(option) \(bundleID)= is given twice; give one profile per bundle id")
                }
                guard !parts[1].isEmpty else { throw Mistake(description: "\(option) \(bundleID)= needs a FILE after '='") }
                byBundleID[bundleID] = String(parts[1])
            } else {
                guard app == nil else {
                    throw Mistake(
                        description: "\(option) FILE (the app's) is given twice; name the others' bundle ids (BUNDLE_ID=FILE)")
                }
                app = value
            }
        }
        return (app, byBundleID)
    }
}

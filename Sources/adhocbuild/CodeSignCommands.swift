import AdhocBuildKit
import CodeSign
import CommandLineOptions
import Foundation
import PlistKit

/// `adhocbuild codesign …`: code signatures.
enum CodeSignCommands {
    static var command: CommandSpec {
        CommandSpec(name: "codesign", abstract: "Verify and sign the code signatures of an app.", subcommands: [verify, sign])
    }

    /// The trust anchor `--anchor` asks the signer's and the profile's chains to end in.
    enum Anchor: String, CaseIterable, Sendable {
        case apple
    }

    /// `--anchor apple` of `codesign verify` and `verify`.
    static func anchorOption<Options: CommandOptions>(_ property: WritableKeyPath<Options, Anchor?>) -> Declaration<Options> {
        .choice(
            property, "--anchor", name: "apple", noun: "anchor",
            help: "Also require the signer's and the profile's chains to end in Apple Root CA (pinned).")
    }

    static var verify: CommandSpec {
        CommandSpec(
            name: "verify",
            abstract: "Check that the seal of an app and of all its nested code holds, as Apple's codesign verifies it (deep, strict).",
            discussion: """
                For the app and every nested code item (frameworks, loose dylibs, extensions, Watch apps, App Clips), inside \
                out: every code page of every slice against every CodeDirectory; the Info.plist, requirements, CodeResources \
                and entitlements slots; every file sealed in _CodeSignature/CodeResources (modified, missing, added); nested \
                code by its own signature and the outer seal; the signature's identifier against the bundle id; the CMS \
                signature over the CodeDirectory with its messageDigest and cdhash attributes; the signer certificate \
                against the embedded profile's certificates and team; the entitlements against the profile's; the \
                profile's own signature. Every slice of a fat binary is checked on its own; a problem only some slices \
                have names them. Two verdicts: the seal (exit 1 when any is broken), and, on 'install:' lines, what \
                iOS's installer would refuse though the seal holds (a signer or entitlements the profile does not cover, \
                an unresolved wildcard, an expired certificate or profile, with --anchor a chain that is not Apple's). \
                Signatures are judged at their signing time, expiry at the present. Unsigned code is a problem; ad-hoc \
                signatures are reported as such. One line per code item on standard output, one line per problem on \
                standard error.
                """,
            options: VerifyOptions.self
        ) { options, _ in
            let input = options.input
            var verification = CodeSignatureVerifier(anchorApple: options.anchor == .apple)
            verification.limits = try LimitSettings.current
            let result = try verification.verify(path: input)
            let report = result.report
            if options.json {
                Console.out(try PropertyList.encode(.dictionary(report.plist()), format: .json))
            } else {
                for item in report.items { Console.line(item.summaryLine) }
                for problem in report.problems { Console.error("\(input): \(problem)") }
                for problem in report.installProblems { Console.warning("\(input): install: \(problem)") }
                let count = report.problems.count
                let items = report.items.count
                let install = report.installProblems.count
                Console.line(
                    "\(input): "
                        + (report.isValid
                            ? "seal valid (\(items) code item\(items == 1 ? "" : "s"))"
                            : "seal broken (\(count) problem\(count == 1 ? "" : "s") in \(report.items.filter { !$0.sealIsValid }.count) of \(items) code items)")
                        + (install == 0
                            ? "" : "; iOS would refuse to install it (\(install) install problem\(install == 1 ? "" : "s"))"))
            }
            return report.isValid ? 0 : 1
        }
    }

    struct VerifyOptions: CommandOptions {
        var input = ""
        var anchor: CodeSignCommands.Anchor?
        var json = false
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.input, "APP|IPA|XCARCHIVE", help: "An .ipa, .app or .xcarchive."),
                anchorOption(\.anchor),
                .flag(\.json, "--json", help: "Print the result as JSON (items, status, cdhash, entitlements, problems, installProblems).")
            ]
        }
    }

    struct SignOptions: CommandOptions {
        var input = ""
        var identity = ""
        var passwordVariable: String?
        var passwordFile: String?
        var profiles: [String] = []
        var entitlements: String?
        var chain: String?
        var output: String?
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.input, "APP|IPA|XCARCHIVE", help: "An .ipa, .app or .xcarchive."),
                .option(
                    \.identity, "--identity", name: "ID.p12", kind: .path, help: "The signing certificate and its key (PKCS#12).",
                    required: true),
                passwordEnvOption(\.passwordVariable, needed: "one of the two is needed"),
                passwordFileOption(\.passwordFile, needed: "one of the two is needed"),
                .repeated(
                    \.profiles, "--profile", name: "[BUNDLE_ID=]FILE",
                    help: "A provisioning profile: FILE for the app, BUNDLE_ID=FILE for an extension or Watch app."),
                .option(
                    \.entitlements, "--entitlements", name: "PLIST", kind: .path,
                    help: "Sign the app with these entitlements instead of its profile's.",
                    defaultDescription: "derived from each bundle's profile"),
                chainOption(\.chain),
                .option(
                    \.output, "-o", "--output", name: "OUT", kind: .path, help: "Where to write the signed app, ipa or archive.",
                    defaultDescription: "over the input")
            ]
        }
    }

    /// `--password-env VAR` of the commands that load a p12; `needed` says when it is needed.
    static func passwordEnvOption<Options: CommandOptions>(
        _ property: WritableKeyPath<Options, String?>, needed: String
    ) -> Declaration<Options> {
        .option(
            property, "--password-env", name: "VAR", help: "Read the p12's password from this environment variable.",
            defaultDescription: "--password-file; \(needed)")
    }

    /// `--password-file FILE` of the commands that load a p12.
    static func passwordFileOption<Options: CommandOptions>(
        _ property: WritableKeyPath<Options, String?>, needed: String
    ) -> Declaration<Options> {
        .option(
            property, "--password-file", name: "FILE", kind: .path,
            help: "Read the p12's password from this file (one trailing newline is dropped).",
            defaultDescription: "--password-env; \(needed)")
    }

    /// `--chain PEM` of the commands that load a p12.
    static func chainOption<Options: CommandOptions>(_ property: WritableKeyPath<Options, String?>) -> Declaration<Options> {
        .option(
            property, "--chain", name: "PEM", kind: .path, help: "More certificates of the signer's chain (PEM), beyond those in the p12.",
            defaultDescription: "the p12's certificates")
    }

    /// Where the p12's password comes from: exactly one of `--password-env` and `--password-file`, else a usage error.
    static func passwordSource(variable: String?, file: String?, _ parsed: ParsedCommand) throws -> PasswordSource {
        switch (variable, file) {
        case (let name?, nil): return .environment(name)
        case (nil, let file?): return .file(file)
        case (_?, _?): throw parsed.usageError("give the password one way: --password-env or --password-file, not both")
        case (nil, nil): throw parsed.usageError("the p12's password is needed: --password-env VAR or --password-file FILE")
        }
    }

    static var sign: CommandSpec {
        CommandSpec(
            name: "sign",
            abstract: "Sign an app, ipa or archive with a p12 identity and provisioning profiles, as Xcode signs an exported build.",
            discussion: """
                Inside out: loose dylibs and frameworks, then extensions, Watch apps and App Clips, then the app. Each app \
                and extension gets the profile for its bundle id as embedded.mobileprovision and the entitlements derived \
                from it (application-identifier and team resolved to the bundle id, keychain groups, get-task-allow as the \
                profile says), or --entitlements for the app; then a CodeResources with Xcode 12's rules, and on every \
                slice of its executable a SHA-256 CodeDirectory (and a SHA-1 one first below iOS 11), the designated \
                requirement, the entitlements (XML and DER) and a CMS signature with the certificate chain. Refuses, and \
                writes nothing, when the key does not match the certificate, the certificate is not in the profile, the \
                profile or certificate has expired, the profile's app id or platform does not fit the bundle, a nested \
                bundle has no profile, or the binary is encrypted. The password never goes on the command line.
                """,
            options: SignOptions.self
        ) { options, parsed in
            let input = options.input
            let password = try passwordSource(variable: options.passwordVariable, file: options.passwordFile, parsed)
            let profiles: (app: String?, byBundleID: [String: String])
            do {
                profiles = try SigningRequest.parseProfiles(options.profiles, option: "--profile")
            } catch let mistake as SigningRequest.Mistake {
                throw parsed.usageError(mistake.description)
            }
            let request = SigningRequest(
                identity: options.identity, password: password, appProfile: profiles.app, profiles: profiles.byBundleID,
                entitlements: options.entitlements)
            let output = options.output
            let limits = try LimitSettings.current
            let report = try AppSigning.sign(
                input, output: output, options: try request.options(chain: options.chain, limits: limits.plist),
                archiveLimits: limits.archive)
            for warning in report.warnings { Console.warning(warning.report) }
            Console.lines(SigningLines.summary(report, target: output ?? input))
            return 0
        }
    }
}

/// How the commands that sign print what they signed: a line per piece of code, then one for the app.
enum SigningLines {
    static func summary(_ report: BundleSigningReport, target: String) -> [String] {
        var lines: [String] = []
        for item in report.items {
            lines.append("signed \(item.path) (\(item.identifier), cdhash \(item.cdhash)\(item.profile.map { ", profile \($0)" } ?? ""))")
        }
        let signer = report.signer.map { " by \"\($0)\"" } ?? " ad hoc"
        let team = report.teamID.map { ", team \($0)" } ?? ""
        return lines + ["\(target): signed\(signer)\(team); cdhash \(report.cdhash)"]
    }
}

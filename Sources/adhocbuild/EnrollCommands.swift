import AdhocBuildKit
import CodeSign
import CommandLineOptions
import Foundation
import Manifest
import PlistKit
import SystemSupport

/// `adhocbuild devices key` and `devices enroll-page`: the enrollment page testers open on their iPhone.
enum EnrollCommands {
    struct KeyOptions: CommandOptions {
        var output = ""
        static var declarations: [Declaration<Self>] {
            [
                .option(
                    \.output, "-o", "--output", name: "FILE", kind: .path, help: "Where to write the key (created with mode 0600).",
                    required: true)
            ]
        }
    }

    static var key: CommandSpec {
        CommandSpec(
            name: "key", abstract: "Make the secret key that enrollment challenges are made and checked with.",
            discussion: """
                32 random bytes, written with mode 0600; an existing file is never replaced. enroll-page (in CI) and \
                receive (on the web server) both need the same key: it is a shared secret, keep it as you keep the \
                signing identity.
                """,
            options: KeyOptions.self
        ) { options, _ in
            try EnrollmentKey.random().write(to: options.output)
            Console.line("\(options.output): enrollment key (\(EnrollmentKey.size) bytes, mode 0600)")
            return 0
        }
    }

    struct EnrollPageOptions: CommandOptions {
        var url = ""
        var key = ""
        var identity: String?
        var passwordVariable: String?
        var passwordFile: String?
        var chain: String?
        var validFor = EnrollmentPage.defaultValidity.description
        var organization: String?
        var output = ""
        static var declarations: [Declaration<Self>] {
            [
                .option(
                    \.url, "--url", name: "URL",
                    help: "The page's address (https); the device's reply goes to this address + 'receive'.", required: true),
                .option(\.key, "--key", name: "FILE", kind: .path, help: "The enrollment key (devices key).", required: true),
                .option(
                    \.identity, "--identity", name: "ID.p12", kind: .path,
                    help: "Sign the profile with this certificate and key (PKCS#12), so iOS shows it as verified.",
                    defaultDescription: "unsigned: iOS shows the profile as Unsigned"),
                CodeSignCommands.passwordEnvOption(\.passwordVariable, needed: "one of the two is needed with --identity"),
                CodeSignCommands.passwordFileOption(\.passwordFile, needed: "one of the two is needed with --identity"),
                CodeSignCommands.chainOption(\.chain),
                .option(
                    \.validFor, "--valid-for", name: "DURATION", kind: StoreOptions.durationKind,
                    help: "How long the profile's challenge is accepted by the receiver."),
                .option(
                    \.organization, "--organization", name: "NAME", help: "Who collects the devices, shown on the page and the profile.",
                    defaultDescription: "none shown"),
                .option(
                    \.output, "-o", "--output", name: "DIR", kind: .path,
                    help: "The folder to write (index.html, enroll.mobileconfig, thanks.html, style.css, enroll.js, thanks.js).",
                    required: true)
            ]
        }
    }

    static var enrollPage: CommandSpec {
        CommandSpec(
            name: "enroll-page",
            abstract: "Write the page testers open on an iPhone to send its UDID, with its enrollment profile and thank-you page.",
            discussion: """
                The profile (enroll.mobileconfig) is an over-the-air Profile Service payload: installing it makes the \
                iPhone or iPad POST its UDID, model (PRODUCT), iOS build (VERSION), serial number and name, with the \
                profile's challenge, to URL + 'receive', signed by the device; nothing stays installed. The challenge is \
                made with the key and expires after --valid-for; devices receive refuses replies without a current one. \
                The page shows an Install profile button on an iPhone or iPad and a QR code of its address on a computer, \
                with no inline script or style. Serve the folder at URL, and enroll.mobileconfig as \
                application/x-apple-aspen-config.
                """,
            options: EnrollPageOptions.self
        ) { options, parsed in
            guard options.url.lowercased().hasPrefix("https://") else {
                throw Diagnostic.manifest(
                    .baseURL,
                    "'\(options.url)' is not an https:// address; serve the page and its receiver over HTTPS, "
                        + "with a certificate the iPhone trusts"
                ).within("--url")
            }
            do { _ = try URLEncoding.baseURL(options.url) } catch let error as Diagnostic { throw error.within("--url") }
            let key = try EnrollmentKey(contentsOf: options.key)
            var identity: SigningIdentity?
            if let path = options.identity {
                let password = try CodeSignCommands.passwordSource(variable: options.passwordVariable, file: options.passwordFile, parsed)
                identity = try SigningIdentity(p12: path, password: password, chainPEM: options.chain)
            } else if options.passwordVariable != nil || options.passwordFile != nil || options.chain != nil {
                throw parsed.usageError("--password-env, --password-file and --chain go with --identity")
            }
            var page = EnrollmentPage(pageURL: options.url, organization: options.organization, key: key, identity: identity)
            page.validFor = TimeSpan(options.validFor) ?? page.validFor
            let result = try page.write(to: options.output)
            let profile = result.profile
            let signer = identity.map { "signed by \"\($0.certificate.displayName)\"" } ?? "unsigned"
            Console.lines([
                "\(options.output)/index.html", "  page:    \(profile.pageURL)",
                "  profile: \(profile.pageURL)\(EnrollmentPage.profileName) (\(signer), \(profile.identifier))",
                "  receive: \(profile.receiveURL)", "  challenge expires: \(PlistDate(result.expires).iso8601)"
            ])
            return 0
        }
    }
}

import AdhocBuildKit
import CommandLineOptions
import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// `adhocbuild inspect`, `verify` and `icon`: looking into ipas and apps.
enum InspectCommands {
    static var inspect: CommandSpec {
        CommandSpec(
            name: "inspect", abstract: "Describe an ipa or app: identity, versions, devices, extensions, icons, profile, signing.",
            discussion: """
                The signing section has one entry per code item (the app and its nested frameworks, dylibs and \
                extensions): signed, ad-hoc or unsigned; identifier, team, signer, cdhash, hash types, CodeDirectory \
                version, entitlement keys; and whether its seal is valid or the first problems that break it. The \
                profile's profileSignature says whether the profile's own CMS signature verifies.
                """,
            options: InspectOptions.self
        ) { options, _ in
            try Summary.print(
                .dictionary(try AppReport.summary(path: options.input, limits: try LimitSettings.current)), json: options.json)
            return 0
        }
    }

    struct InspectOptions: CommandOptions {
        var input = ""
        var json = false
        static var declarations: [Declaration<Self>] {
            [.argument(\.input, "IPA|APP", help: "An .ipa, .app or .xcarchive."), .flag(\.json, "--json", help: "Print JSON.")]
        }
    }

    struct VerifyOptions: CommandOptions {
        var ipa = ""
        var udids: [String] = []
        var at: String?
        var anchor: CodeSignCommands.Anchor?
        var json = false
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.ipa, "IPA", help: "An .ipa (or .app)."),
                .repeated(\.udids, "--udid", name: "UDID", help: "A device that must be able to install it."),
                .option(
                    \.at, "--at", name: "DATE",
                    kind: .checked(
                        expectation: "a date like 2026-12-31 or 2026-12-31T12:00:00Z",
                        accepts: { PlistDate(iso8601: $0) != nil }),
                    help: "Check expiry as of this date (YYYY-MM-DD[THH:MM:SSZ]).", defaultDescription: "now"),
                CodeSignCommands.anchorOption(\.anchor),
                .flag(\.json, "--json", help: "Print JSON.")
            ]
        }
    }

    static var verify: CommandSpec {
        CommandSpec(
            name: "verify", abstract: "Check an ipa before publishing it: profile, devices, bundle ids, versions, build kind, signature.",
            discussion: """
                One .app under Payload; the required Info.plist keys; an executable with its execute bit; a device build, \
                not a simulator one; an embedded profile that has not expired (a warning within 14 days), whose App ID \
                covers the bundle id and that can install over the air (not App Store); extensions under the app's \
                bundle id with the app's versions; each --udid in the profile; the code signature, as codesign verify \
                checks it: a broken seal is an error, and so is what iOS's installer would refuse though the seal holds (a \
                signer, team or entitlements the profile does not cover, an expired signer certificate, with --anchor a \
                chain that is not Apple's); unsigned or ad-hoc code is a warning. Errors and warnings one per line; exit \
                1 on errors.
                """,
            options: VerifyOptions.self
        ) { options, _ in
            let now = options.at.flatMap { PlistDate(iso8601: $0)?.date } ?? Date()
            var check = PublishVerifier(udids: options.udids, now: now, anchorApple: options.anchor == .apple)
            check.limits = try LimitSettings.current
            let findings =
                try check
                .verify(path: options.ipa)
            let errors = findings.filter { $0.severity == .error }.count
            if options.json {
                var dict = PlistDictionary()
                dict["ipa"] = .string(options.ipa)
                dict["ok"] = .bool(errors == 0)
                dict["findings"] = .array(findings.map(PlistValue.init))
                Console.out(try PropertyList.encode(.dictionary(dict), format: .json))
            } else {
                for finding in findings {
                    let line = "\(options.ipa): \(finding)"
                    if finding.severity == .error { Console.error(line) } else { Console.warning(line) }
                }
                let warnings = findings.count - errors
                Console.line(
                    "\(options.ipa): \(errors == 0 ? "ready to publish" : "not ready")"
                        + " (\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s"))")
            }
            return errors > 0 ? 1 : 0
        }
    }

    struct IconListOptions: CommandOptions {
        var input = ""
        static var declarations: [Declaration<Self>] { [.argument(\.input, "IPA|APP", help: "An .ipa, .app or .xcarchive.")] }
    }

    struct IconExtractOptions: CommandOptions {
        var input = ""
        var output = ""
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.input, "IPA|APP", help: "An .ipa, .app or .xcarchive."),
                .option(\.output, "-o", "--output", name: "DIR", kind: .path, help: "The folder to write to.", required: true)
            ]
        }
    }

    static var icon: CommandSpec {
        CommandSpec(
            name: "icon", abstract: "List the app's icons, and extract them as standard PNGs.",
            subcommands: [
                CommandSpec(
                    name: "list",
                    abstract:
                        "Show the app's icon files, the icon renditions of its asset catalog and its alternate icons; '*' marks the one the install page uses.",
                    options: IconListOptions.self
                ) { options, _ in
                    Console.lines(try IconListing.list(options.input, limits: try LimitSettings.current).lines)
                    return 0
                },
                CommandSpec(
                    name: "extract", abstract: "Write the app's icons (CgBI un-crushed) to a folder; the largest also as icon.png.",
                    options: IconExtractOptions.self
                ) { options, _ in
                    let written = try AppIcons.extract(options.input, to: options.output, limits: try LimitSettings.current)
                    for (index, item) in written.enumerated() {
                        let icon = item.icon
                        let note = index == written.count - 1 ? "the largest, " : ""
                        Console.line(
                            "\(item.path): \(note)\(icon.width)x\(icon.height)\(index < written.count - 1 && icon.isCgBI ? " (un-crushed from CgBI)" : "")"
                        )
                    }
                    return 0
                }
            ])
    }
}

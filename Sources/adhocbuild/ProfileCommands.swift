import AdhocBuildKit
import CommandLineOptions
import Foundation
import IPAKit
import PlistKit

/// `adhocbuild profile …`: provisioning profiles.
enum ProfileCommands {
    static var command: CommandSpec {
        CommandSpec(name: "profile", abstract: "Read provisioning profiles (.mobileprovision).", subcommands: [show, devices])
    }

    static var show: CommandSpec {
        CommandSpec(
            name: "show", abstract: "Print a profile's type, team, App ID, dates, devices and entitlements.",
            discussion: """
                profileSignature says whether the profile's own CMS signature verifies over its content and who signed it \
                (Apple's "Apple iPhone OS Provisioning Profile Signing"); the signer's chain is not judged here (codesign \
                verify --anchor apple does that).
                """,
            arguments: [ArgumentSpec(name: "FILE", help: "A .mobileprovision or .provisionprofile file.")],
            options: [.flag("--json", help: "Print JSON.")],
            run: { parsed in
                let summary = PlistValue.dictionary(
                    try ProfileCheck.summary(path: parsed.positionals[0], limits: try LimitSettings.current.plist))
                if parsed.flag("json") {
                    Console.out(try PropertyList.encode(summary, format: .json))
                } else {
                    Console.lines(Summary.lines(summary))
                }
                return 0
            })
    }

    static var devices: CommandSpec {
        CommandSpec(
            name: "devices", abstract: "Print the device UDIDs a profile allows, one per line.",
            arguments: [ArgumentSpec(name: "FILE", help: "A .mobileprovision file.")],
            run: { parsed in
                let profile = try ProvisioningProfile(contentsOf: parsed.positionals[0], limits: try LimitSettings.current.plist)
                if profile.provisionsAllDevices {
                    Console.err("\(parsed.positionals[0]): an enterprise profile; it allows every device\n")
                }
                for device in profile.devices { Console.line(device) }
                return 0
            })
    }
}

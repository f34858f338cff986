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
            discussion: "The profile's CMS envelope is parsed but Apple's signature is not verified.",
            arguments: [ArgumentSpec(name: "FILE", help: "A .mobileprovision or .provisionprofile file.")],
            options: [.flag("--json", help: "Print JSON.")],
            run: { parsed in
                let profile = try ProvisioningProfile(contentsOf: parsed.positionals[0])
                let summary = PlistValue.dictionary(profile.summary())
                if parsed.flag("json") {
                    Console.out(try PropertyList.encode(summary, format: .json))
                } else {
                    Console.out(Summary.text(summary))
                    Console.out("(signature not verified)\n")
                }
                return 0
            })
    }

    static var devices: CommandSpec {
        CommandSpec(
            name: "devices", abstract: "Print the device UDIDs a profile allows, one per line.",
            arguments: [ArgumentSpec(name: "FILE", help: "A .mobileprovision file.")],
            run: { parsed in
                let profile = try ProvisioningProfile(contentsOf: parsed.positionals[0])
                if profile.provisionsAllDevices {
                    Console.err("\(parsed.positionals[0]): an enterprise profile; it allows every device\n")
                }
                for device in profile.devices { Console.out(device + "\n") }
                return 0
            })
    }
}

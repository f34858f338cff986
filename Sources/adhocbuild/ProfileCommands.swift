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

    struct ShowOptions: CommandOptions {
        var file = ""
        var json = false
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.file, "FILE", help: "A .mobileprovision or .provisionprofile file."),
                .flag(\.json, "--json", help: "Print JSON.")
            ]
        }
    }

    struct DevicesOptions: CommandOptions {
        var file = ""
        static var declarations: [Declaration<Self>] { [.argument(\.file, "FILE", help: "A .mobileprovision file.")] }
    }

    static var show: CommandSpec {
        CommandSpec(
            name: "show", abstract: "Print a profile's type, team, App ID, dates, devices and entitlements.",
            discussion: """
                profileSignature says whether the profile's own CMS signature verifies over its content and who signed it \
                (Apple's "Apple iPhone OS Provisioning Profile Signing"); the signer's chain is not judged here (codesign \
                verify --anchor apple does that).
                """,
            options: ShowOptions.self
        ) { options, _ in
            try Summary.print(
                .dictionary(try ProfileCheck.summary(path: options.file, limits: try LimitSettings.current.plist)), json: options.json)
            return 0
        }
    }

    static var devices: CommandSpec {
        CommandSpec(
            name: "devices", abstract: "Print the device UDIDs a profile allows, one per line.",
            options: DevicesOptions.self
        ) { options, _ in
            let profile = try ProvisioningProfile(contentsOf: options.file, limits: try LimitSettings.current.plist)
            if profile.provisionsAllDevices {
                Console.err("\(options.file): an enterprise profile; it allows every device\n")
            }
            for device in profile.devices { Console.line(device) }
            return 0
        }
    }
}

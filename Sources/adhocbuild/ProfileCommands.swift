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

/// Key: value lines for a summary dictionary, nested ones indented.
enum Summary {
    static func text(_ value: PlistValue, indent: String = "") -> String {
        guard case .dictionary(let dict) = value else { return indent + PlistTextPrinter().renderInline(value) + "\n" }
        let width = dict.keys.map(\.count).max() ?? 0
        var out = ""
        for (key, item) in dict {
            let label = indent + (key + ":").padding(toLength: width + 2, withPad: " ", startingAt: 0)
            switch item {
            case .dictionary(let nested) where !nested.isEmpty:
                out += indent + key + ":\n" + text(item, indent: indent + "  ")
            case .array(let items) where items.isEmpty:
                out += label + "-\n"
            case .array(let items) where items.allSatisfy({ !$0.isContainer }):
                out += label + items.map { $0.stringValue ?? PlistTextPrinter().renderInline($0) }.joined(separator: ", ") + "\n"
            case .array(let items) where items.contains(where: \.isContainer):
                out += indent + key + ":\n" + items.map { text($0, indent: indent + "  - ") }.joined()
            case .string(let string): out += label + string + "\n"
            default: out += label + PlistTextPrinter().renderRaw(item)
            }
        }
        return out
    }
}

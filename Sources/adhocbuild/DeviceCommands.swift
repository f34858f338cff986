import AdhocBuildKit
import CommandLineOptions
import Foundation
import PlistKit
import SystemSupport

/// `adhocbuild devices …`: the list of testers' devices (`devices.plist`), kept by hand or by enrollment.
enum DeviceCommands {
    static var command: CommandSpec {
        CommandSpec(
            name: "devices", abstract: "Collect testers' device UDIDs from their iPhones, keep the list, and export it for Apple's portal.",
            discussion: """
                STORE is the list's file (an XML plist, devices.plist). Changes lock the folder that holds it and \
                replace it by renaming, so several at once lose nothing; keep it on a local file system (not NFS).
                """,
            subcommands: [
                list, add, DeviceImportCommand.command, remove, export, EnrollCommands.key, EnrollCommands.enrollPage,
                DeviceReceiveCommand.command
            ])
    }

    static let storeHelp = "The device list (devices.plist)."

    struct ListOptions: CommandOptions {
        var store = ""
        var json = false
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.store, "STORE", help: DeviceCommands.storeHelp, kind: .path),
                .flag(\.json, "--json", help: "Print JSON, as export --format json writes it.")
            ]
        }
    }

    static var list: CommandSpec {
        CommandSpec(
            name: "list", abstract: "Print the listed devices: UDID, platform, model, name, when and by whom added.",
            options: ListOptions.self
        ) { options, _ in
            let devices = try DeviceStore(path: options.store).load().devices
            if options.json {
                Console.out(try DeviceExport.json(devices))
                return 0
            }
            Console.lines(DeviceListText.lines(devices))
            return 0
        }
    }

    struct AddOptions: CommandOptions {
        var store = ""
        var udid = ""
        var name = ""
        var model: String?
        var by: String?
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.store, "STORE", help: DeviceCommands.storeHelp + " Made when missing.", kind: .path),
                .option(\.udid, "--udid", name: "UDID", help: "The device's UDID.", required: true),
                .option(\.name, "--name", name: "NAME", help: "The device's name, as the portal will show it.", required: true),
                .option(
                    \.model, "--model", name: "MODEL",
                    help: "The hardware model (iPhone15,2); a Mac's (Mac14,2) makes an Apple-silicon Mac's UDID a Mac's.",
                    defaultDescription: "none"),
                .option(\.by, "--by", name: "WHO", help: "Who added the device.", defaultDescription: "$USER")
            ]
        }
    }

    static var add: CommandSpec {
        CommandSpec(
            name: "add", abstract: "Add a device to the list, or rename a listed one.",
            discussion: "A UDID already listed (in any case) keeps when and by whom it was added; its name and model are replaced.",
            options: AddOptions.self
        ) { options, _ in
            try DeviceRecord.validate(name: options.name)
            let now = Date()
            let by = options.by ?? ProcessInfo.processInfo.environment["USER"] ?? "unknown"
            let record = try DeviceRecord(
                udid: options.udid, name: options.name, model: options.model, added: now, addedBy: by, source: .manual)
            let outcome = try DeviceStore(path: options.store).update { $0.merge(record, now: now) }
            let told: String
            switch outcome {
            case .added: told = "added"
            case .updated: told = "updated"
            case .unchanged: told = "already listed:"
            }
            Console.line("\(told) \(record.udid) \(record.name)")
            return 0
        }
    }

    struct RemoveOptions: CommandOptions {
        var store = ""
        var udids: [String] = []
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.store, "STORE", help: DeviceCommands.storeHelp, kind: .path),
                .arguments(\.udids, "UDID", help: "The UDIDs of the devices to remove (any case).")
            ]
        }
    }

    static var remove: CommandSpec {
        CommandSpec(
            name: "remove", abstract: "Remove devices from the list.",
            discussion: """
                A UDID that is not listed is an error, and nothing is removed. Apple's portal counts a removed device \
                until the membership year ends; remove it there too.
                """,
            options: RemoveOptions.self
        ) { options, _ in
            let removed = try DeviceStore(path: options.store).update { try $0.remove(udids: options.udids, file: options.store) }
            Console.lines(removed.map { "removed \($0.udid) \($0.name)" })
            return 0
        }
    }

    struct ExportOptions: CommandOptions {
        var store = ""
        var format = DeviceExport.Format.tsv
        var output = "-"
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.store, "STORE", help: DeviceCommands.storeHelp, kind: .path),
                .choice(
                    \.format, "--format", name: "FORMAT", noun: "format",
                    help: "tsv: Apple's \"Register Multiple Devices\" file; json: every field."),
                .option(\.output, "-o", "--output", name: "FILE", kind: .path, help: "Where to write (- is standard output).")
            ]
        }
    }

    static var export: CommandSpec {
        CommandSpec(
            name: "export", abstract: "Write the list for Apple's developer portal (Register Multiple Devices), or as JSON.",
            discussion: """
                The tsv file has the header Device ID, Device Name, Device Platform (ios or mac), one device per line \
                sorted by name; tabs and line ends in names become spaces and names are cut to 50 characters, with a \
                warning. The portal takes 100 devices of each kind per membership year.
                """,
            options: ExportOptions.self
        ) { options, _ in
            let devices = try DeviceStore(path: options.store).load().devices
            let data: Data
            switch options.format {
            case .tsv:
                let (text, warnings) = DeviceExport.portalFile(devices)
                for warning in warnings { Console.warning(warning.report) }
                data = Data(text.utf8)
            case .json:
                data = try DeviceExport.json(devices)
            }
            try FileIO.writeAtomically(data, to: options.output)
            return 0
        }
    }
}

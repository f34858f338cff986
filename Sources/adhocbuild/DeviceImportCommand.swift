import AdhocBuildKit
import CommandLineOptions
import Foundation
import SystemSupport

/// `adhocbuild devices import STORE FILE…`: devices from the portal's file, Xcode's `.deviceids`, a JSON
/// export or another list, merged into the list as `devices add` merges one.
enum DeviceImportCommand {
    struct Options: CommandOptions {
        var store = ""
        var files: [String] = []
        var by: String?
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.store, "STORE", help: DeviceCommands.storeHelp + " Made when missing.", kind: .path),
                .arguments(
                    \.files, "FILE",
                    help: "Lists to read: Apple's Register Multiple Devices file (.txt), Xcode's .deviceids, "
                        + "devices export --format json, or another devices.plist."),
                .option(\.by, "--by", name: "WHO", help: "Who added the new devices.", defaultDescription: "$USER")
            ]
        }
    }

    static var command: CommandSpec {
        CommandSpec(
            name: "import", abstract: "Add the devices of other lists: the developer portal's file, Xcode's .deviceids, JSON.",
            discussion: """
                Every file is read before the list is changed: a bad UDID or name, or a UDID listed twice in a file, \
                fails the import with the file and line, and nothing is added. A device already listed keeps when and \
                by whom it was added; its name is replaced, and its model only by one the file gives.
                """,
            options: Options.self
        ) { options, _ in
            var entries: [DeviceImport.Entry] = []
            for file in options.files {
                entries += try DeviceImport.read(file)
            }
            let now = Date()
            let by = options.by ?? ProcessInfo.processInfo.environment["USER"] ?? "unknown"
            let records = try entries.map { try $0.record(now: now, addedBy: by) }
            let outcomes = try DeviceStore(path: options.store).update { list in records.map { list.merge($0, now: now) } }
            for (record, outcome) in zip(records, outcomes) where outcome != .unchanged {
                Console.line("\(outcome == .added ? "added" : "updated") \(record.udid) \(record.name)")
            }
            let count = { (kind: DeviceList.MergeOutcome) in outcomes.filter { $0 == kind }.count }
            Console.line(
                "\(records.count) device\(records.count == 1 ? "" : "s") read: \(count(.added)) added, \(count(.updated)) updated, "
                    + "\(count(.unchanged)) already listed")
            return 0
        }
    }
}

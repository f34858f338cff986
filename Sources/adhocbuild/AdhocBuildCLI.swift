import AdhocBuildKit
import CommandLineOptions
import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// The top of the command tree and the one place that turns errors into output and exit codes:
/// 0 success, 1 failure, 2 usage error.
enum AdhocBuildCLI {
    static var root: CommandSpec {
        CommandSpec(
            name: "adhocbuild",
            abstract: "adhocbuild turns an iOS build into something testers can install, on Linux.",
            subcommands: [
                PlistCommands.command, EnvCommands.command, VersionCommands.command, PackageCommand.command, InspectCommands.inspect,
                InspectCommands.verify, InspectCommands.icon, ProfileCommands.command, CodeSignCommands.command,
                DistributionCommands.manifest,
                DistributionCommands.page, DistributionCommands.index, StoreCommands.publish, StoreCommands.links, PruneCommand.command,
                ReleaseCommand.command, DeviceCommands.command
            ],
            environment: LimitSettings.helpRows)
    }

    static func run(_ arguments: [String]) -> Int32 {
        let parser = CommandLineParser(root: root)
        do {
            // A limit variable that is not valid is a usage error before any command runs.
            _ = try LimitSettings.current
            switch try parser.parse(arguments) {
            case .version:
                Console.out("adhocbuild \(AdhocBuildVersion.current)\n")
                return 0
            case .help(let path):
                guard let command = parser.command(at: path) else {
                    let unknown = path.dropFirst().joined(separator: " ")
                    return usageFailure(
                        UsageError(
                            message: "no help for unknown command '\(unknown)'",
                            commandPath: [root.name]), parser)
                }
                Console.out(HelpFormatter.help(command, path: path))
                return 0
            case .run(let command, let parsed):
                do { return try command.run(parsed) } catch  where DiskSpace.isFull(error) {
                    throw FullDisk.error(for: command, parsed) ?? error
                }
            }
        } catch {
            return failure(error, parser)
        }
    }

    /// Prints `error` and returns its exit code: a usage error with the usage line (2), any other
    /// error as its report lines, each naming the file and place, with its hint (1).
    static func failure(_ error: any Error, _ parser: CommandLineParser) -> Int32 {
        if let usage = error as? UsageError { return usageFailure(usage, parser) }
        for line in reportLines(for: error) { Console.error(line) }
        return 1
    }

    static func usageFailure(_ error: UsageError, _ parser: CommandLineParser) -> Int32 {
        Console.error(error.message)
        if let command = parser.command(at: error.commandPath) {
            Console.err("Usage: \(HelpFormatter.usage(command, path: error.commandPath))\n")
        }
        Console.err("See '\(error.commandPath.joined(separator: " ")) --help'.\n")
        return 2
    }
}

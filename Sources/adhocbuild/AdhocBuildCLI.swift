import AdhocBuildKit
import CommandLineOptions
import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// The top of the command tree and the one place that turns errors into output and exit codes:
/// 0 success, 1 failure, 2 usage error.
enum AdhocBuildCLI {
    /// The commands under `adhocbuild`, by name, each built when asked for.
    static let commands: [(name: String, spec: @Sendable () -> CommandSpec)] = [
        ("plist", { PlistCommands.command }), ("env", { EnvCommands.command }), ("version", { VersionCommands.command }),
        ("package", { PackageCommand.command }), ("inspect", { InspectCommands.inspect }), ("verify", { InspectCommands.verify }),
        ("icon", { InspectCommands.icon }), ("profile", { ProfileCommands.command }), ("codesign", { CodeSignCommands.command }),
        ("manifest", { DistributionCommands.manifest }), ("page", { DistributionCommands.page }),
        ("index", { DistributionCommands.index }), ("publish", { StoreCommands.publish }), ("links", { StoreCommands.links }),
        ("prune", { PruneCommand.command }), ("release", { ReleaseCommand.command }), ("devices", { DeviceCommands.command })
    ]

    static var root: CommandSpec { root(with: commands.map { $0.spec() }) }

    static func root(with subcommands: [CommandSpec]) -> CommandSpec {
        CommandSpec(
            name: "adhocbuild",
            abstract: "adhocbuild turns an iOS build into something testers can install, on Linux.",
            subcommands: subcommands,
            environment: LimitSettings.helpRows)
    }

    static func run(_ arguments: [String]) -> Int32 {
        do {
            // A limit variable that is not valid is a usage error before any command runs.
            _ = try LimitSettings.current
        } catch {
            return failure(error, CommandLineParser(root: root))
        }
        // A command line that runs the command it names first is parsed against that command
        // alone: building every command's options and help first was most of the start of a
        // short command. Anything else (help, a usage error) is parsed again against them all.
        if let name = arguments.first, let named = commands.first(where: { $0.name == name }) {
            let parser = CommandLineParser(root: root(with: [named.spec()]))
            if case .run(let command, let parsed)? = try? parser.parse(arguments) { return run(command, parsed, parser) }
        }
        let parser = CommandLineParser(root: root)
        do {
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
                return run(command, parsed, parser)
            }
        } catch {
            return failure(error, parser)
        }
    }

    /// Runs a parsed command; its errors are reported against `parser`'s commands.
    static func run(_ command: CommandSpec, _ parsed: ParsedCommand, _ parser: CommandLineParser) -> Int32 {
        do {
            do { return try command.run(parsed) } catch  where DiskSpace.isFull(error) {
                throw FullDisk.error(for: command, parsed) ?? error
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

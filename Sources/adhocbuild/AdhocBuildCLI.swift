import Foundation
import AdhocBuildKit
import CommandLineOptions
import IPAKit
import PlistKit

/// The top of the command tree and the one place that turns errors into output and exit codes:
/// 0 success, 1 failure, 2 usage error.
enum AdhocBuildCLI {
    static var root: CommandSpec {
        CommandSpec(
            name: "adhocbuild",
            abstract: "adhocbuild turns an iOS build into something testers can install, on Linux.",
            subcommands: [PlistCommands.command, EnvCommands.command, VersionCommands.command, PackageCommand.command, InspectCommands.inspect, InspectCommands.verify, InspectCommands.icon, ProfileCommands.command, DistributionCommands.manifest, DistributionCommands.page, DistributionCommands.index, ReleaseCommand.command],
            environment: LimitSettings.helpRows)
    }

    static func run(_ arguments: [String]) -> Int32 {
        let parser = CommandLineParser(root: root)
        do {
            try LimitSettings.apply(ProcessInfo.processInfo.environment)
            switch try parser.parse(arguments) {
            case .version:
                Console.out("adhocbuild \(AdhocBuildVersion.current)\n")
                return 0
            case .help(let path):
                guard let command = parser.command(at: path) else {
                    let unknown = path.dropFirst().joined(separator: " ")
                    return usageFailure(UsageError(message: "no help for unknown command '\(unknown)'",
                                                   commandPath: [root.name]), parser)
                }
                Console.out(HelpFormatter.help(command, path: path))
                return 0
            case .run(let command, let parsed):
                return try command.run!(parsed)
            }
        } catch let error as UsageError {
            return usageFailure(error, parser)
        } catch let error as PlistError {
            Console.error(error.description + (error.kind == .limitExceeded ? limitHint : ""))
            return 1
        } catch let error as AdhocBuildError {
            Console.error(error.description)
            return 1
        } catch let error as IPAError {
            Console.error(error.description + (error.isLimitExceeded ? limitHint : ""))
            return 1
        } catch let errors as AdhocBuildErrors {
            for problem in errors.problems { Console.error(problem.description) }
            return 1
        } catch {
            Console.error("\(error)")
            return 1
        }
    }

    /// Appended to errors about exceeded limits.
    static let limitHint = " (limits can be raised: see Environment in 'adhocbuild --help')"

    static func usageFailure(_ error: UsageError, _ parser: CommandLineParser) -> Int32 {
        Console.error(error.message)
        if let command = parser.command(at: error.commandPath) {
            Console.err("Usage: \(HelpFormatter.usage(command, path: error.commandPath))\n")
        }
        Console.err("See '\(error.commandPath.joined(separator: " ")) --help'.\n")
        return 2
    }
}

import Foundation

exit(AdhocBuildCLI.run(Array(CommandLine.arguments.dropFirst())))

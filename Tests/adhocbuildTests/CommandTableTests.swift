import CommandLineOptions
import Testing

@testable import adhocbuild

/// The table a command line's first word is looked up in, to build that command alone.
@Suite struct CommandTableTests {
    @Test func eachCommandIsListedUnderTheNameItHas() {
        for (name, spec) in AdhocBuildCLI.commands { #expect(spec().name == name) }
        #expect(Set(AdhocBuildCLI.commands.map(\.name)).count == AdhocBuildCLI.commands.count)
    }

    @Test func aCommandBuiltAloneParsesAsInTheWholeTree() throws {
        let arguments = ["codesign", "verify", "Some.app", "--json", "--anchor", "apple"]
        let alone = CommandLineParser(root: AdhocBuildCLI.root(with: [CodeSignCommands.command]))
        let whole = CommandLineParser(root: AdhocBuildCLI.root)
        guard case .run(let aloneCommand, let aloneParsed) = try alone.parse(arguments),
            case .run(let wholeCommand, let wholeParsed) = try whole.parse(arguments)
        else {
            Issue.record("not parsed as a command to run")
            return
        }
        #expect(aloneCommand.name == wholeCommand.name && aloneParsed.path == wholeParsed.path)
        #expect(aloneParsed.positionals == wholeParsed.positionals)
        #expect(!wholeCommand.options.isEmpty)
        for option in wholeCommand.options { #expect(aloneParsed.value(of: option) == wholeParsed.value(of: option)) }
        #expect(wholeCommand.options.contains { wholeParsed.value(of: $0) == "apple" })
    }
}

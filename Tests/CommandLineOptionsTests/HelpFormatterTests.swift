import CommandLineOptions
import Testing

@Suite struct HelpFormatterTests {
    @Test func theUsageLineShowsRequiredOptions() {
        #expect(
            HelpFormatter.usage(SampleCommands.package, path: ["tool", "package"])
                == "tool package APP -o OUT.ipa [options]")
        #expect(HelpFormatter.usage(SampleCommands.set, path: ["tool", "set"]) == "tool set KEY [VALUE]")
        #expect(HelpFormatter.usage(SampleCommands.lint, path: ["tool", "lint"]) == "tool lint FIELD FILE...")
        #expect(HelpFormatter.usage(SampleCommands.root, path: ["tool"]) == "tool <command>")
    }

    @Test func helpIsGeneratedFromTheDeclarations() {
        #expect(
            HelpFormatter.help(SampleCommands.package, path: ["tool", "package"]) == """
                Package an app.

                Usage: tool package APP -o OUT.ipa [options]

                Arguments:
                  APP  The app.

                Options:
                  -o, --output OUT.ipa  Where to write the ipa (required).
                  --level 0-9           Deflate level; 0 stores (0 to 9; default: 6).
                  --to FORMAT           The format (xml, binary or json; default: the input's).
                  --set KEYPATH=VALUE   Override a value (repeatable).
                  --at DATE             The date.
                  -q, --quiet           Print nothing.
                  -h, --help            Show this help.

                Exit status:
                  0  Success.
                  1  Failure: each error names the file (and the key path, line or entry) and what is wrong.
                  2  Usage error: an unknown, missing or malformed argument or option.

                """)
    }

    /// A group of commands runs nothing itself, so its help has no exit codes; the tool's help does.
    @Test func exitCodesAreShownForCommandsThatRunAndForTheTool() {
        #expect(HelpFormatter.help(SampleCommands.root, path: ["tool"]).contains("\nExit status:\n  0  Success.\n"))
        let group = CommandSpec(name: "group", abstract: "A group.", subcommands: [SampleCommands.package])
        #expect(!HelpFormatter.help(group, path: ["tool", "group"]).contains("Exit status"))
    }

    @Test func theTopLevelHelpListsCommandsAndTheVersionOption() {
        let help = HelpFormatter.help(SampleCommands.root, path: ["tool"])
        #expect(help.contains("\nCommands:\n  package  Package an app.\n  set      Set a value.\n  lint     Check files.\n"))
        #expect(help.contains("  --version   Print the version.\n"))
        #expect(help.hasSuffix("See 'tool help <command>' for a command's options.\n"))
    }

    @Test func notesJoinBracketsThatEndTheHelpAndLongRowsWrap() {
        let command = CommandSpec(
            name: "c", abstract: "C.",
            options: [
                .value("-o", name: "OUT", help: "Where to write ('-' for standard output).", required: true),
                .value("--type", name: "TYPE", kind: .choice((1...12).map { "choice\($0)" }, noun: "type"), help: "The type.")
            ], run: { _ in 0 })
        #expect(
            HelpFormatter.help(command, path: ["c"]).contains(
                """
                  -o OUT       Where to write ('-' for standard output; required).
                  --type TYPE  The type (choice1, choice2, choice3, choice4, choice5, choice6, choice7, choice8,
                               choice9, choice10, choice11 or choice12).

                """))
    }

    @Test func aPositionalsChoicesAreShownWithItsHelp() {
        #expect(HelpFormatter.help(SampleCommands.lint, path: ["tool", "lint"]).contains("  FIELD  What to check (build or marketing).\n"))
    }
}

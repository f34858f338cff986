/// A command's arguments and options as one struct: each stored property is declared once, through its
/// key path in `declarations`, so that a misspelt name or a wrong type does not compile. The parser
/// checks the command line against the same declarations, and help is generated from them.
///
/// A property's initial value is what the command gets when the option is not given; for an option
/// that is neither optional nor required it is the default that help shows.
public protocol CommandOptions: Sendable {
    init()
    /// The arguments and options, in the order usage and help list them.
    static var declarations: [Declaration<Self>] { get }
}

extension CommandOptions {
    /// The values on a command line the parser has checked against ``declarations``.
    public static func read(from parsed: ParsedCommand) throws -> Self {
        var options = Self()
        var position = 0
        for declaration in declarations {
            try declaration.read(&options, parsed, position)
            if declaration.argument != nil { position += 1 }
        }
        return options
    }

    static var optionSpecs: [OptionSpec] { declarations.flatMap(\.options) }
    static var argumentSpecs: [ArgumentSpec] { declarations.compactMap(\.argument) }
}

extension CommandSpec {
    /// A command whose arguments and options are the properties of `Options`: `run` gets them read and
    /// typed, and the parsed command for usage errors about rules the declarations cannot state.
    public init<Options: CommandOptions>(
        name: String, abstract: String, discussion: String = "", environment: [(String, String)] = [],
        options: Options.Type, run: @escaping @Sendable (Options, ParsedCommand) throws -> Int32
    ) {
        // Worked out only for the command that runs (or whose help is shown): see CommandDeclarations.
        self.init(
            name: name, abstract: abstract, discussion: discussion,
            declarations: CommandDeclarations { (Options.argumentSpecs, Options.optionSpecs) }, subcommands: [],
            environment: environment, run: { parsed in try run(try Options.read(from: parsed), parsed) })
    }
}

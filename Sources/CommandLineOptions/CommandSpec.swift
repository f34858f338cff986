/// A command or a group of subcommands: its arguments, options, help text and what it runs.
public struct CommandSpec: Sendable {
    public var name: String
    public var abstract: String
    public var discussion: String
    public var arguments: [ArgumentSpec] { declarations.specs.arguments }
    public var options: [OptionSpec] { declarations.specs.options }
    public var subcommands: [CommandSpec]
    /// Environment variables the command reads: name and what it does.
    public var environment: [(String, String)]
    /// Runs the command and returns its exit code; nil for a group that only holds subcommands.
    public var run: (@Sendable (ParsedCommand) throws -> Int32)?
    private let declarations: CommandDeclarations

    public init(
        name: String, abstract: String, discussion: String = "", arguments: [ArgumentSpec] = [],
        options: [OptionSpec] = [], subcommands: [CommandSpec] = [], environment: [(String, String)] = [],
        run: (@Sendable (ParsedCommand) throws -> Int32)? = nil
    ) {
        self.init(
            name: name, abstract: abstract, discussion: discussion,
            declarations: CommandDeclarations(arguments: arguments, options: options), subcommands: subcommands,
            environment: environment, run: run)
    }

    /// A command whose arguments and options come from `declarations`, worked out when first asked for.
    init(
        name: String, abstract: String, discussion: String, declarations: CommandDeclarations, subcommands: [CommandSpec],
        environment: [(String, String)], run: (@Sendable (ParsedCommand) throws -> Int32)?
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.declarations = declarations
        self.subcommands = subcommands
        self.environment = environment
        self.run = run
    }

    /// Runs the command on what the parser found; a group without `run` is a usage error, as the
    /// parser reports it.
    public func run(_ parsed: ParsedCommand) throws -> Int32 {
        guard let run else { throw Self.needsSubcommand(parsed) }
        return try run(parsed)
    }

    static func needsSubcommand(_ parsed: ParsedCommand) -> UsageError {
        parsed.usageError("'\(parsed.path.joined(separator: " "))' needs a subcommand")
    }

    public func subcommand(named name: String) -> CommandSpec? { subcommands.first { $0.name == name } }

    /// The option spelled `name` (`-o` or `--output`), if the command has one.
    func option(spelled name: String) -> OptionSpec? { options.first { $0.names.contains(name) } }
}

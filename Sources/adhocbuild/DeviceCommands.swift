import CommandLineOptions

/// `adhocbuild devices …`: testers' devices.
enum DeviceCommands {
    static var command: CommandSpec {
        CommandSpec(
            name: "devices", abstract: "Collect testers' device UDIDs from their iPhones.",
            subcommands: [EnrollCommands.key, EnrollCommands.enrollPage])
    }
}

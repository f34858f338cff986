import CommandLineOptions
import SystemSupport

/// A command that failed on a full disk is told by what it writes, not by the file it was writing (a
/// temporary one, or a copy named like the input): the output it was given (`-o`, `--output`, `--out`),
/// else what it changes in place (`--app`, `--project`, `--plist`, the last argument naming a file or
/// folder, else the current folder), and the disk.
enum FullDisk {
    /// The error naming the command's output and its disk; nil when the output is standard output,
    /// which its own error names.
    static func error(for command: CommandSpec, _ parsed: ParsedCommand) -> Diagnostic? {
        let output =
            ["output", "out", "app", "project", "plist"].lazy.compactMap { key in
                command.options.first { $0.key == key }.flatMap(parsed.value(of:))
            }.first
            ?? parsed.positionals.last { FileIO.kind(of: $0) != nil } ?? "."
        guard output != "-" else { return nil }
        return DiskSpace.fullError(writing: output)
    }
}

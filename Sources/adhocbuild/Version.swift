/// The tool's version, printed by `--version`.
enum AdhocBuildVersion {
    static let current = "0.1.0"
}

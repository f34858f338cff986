/// adhocbuild's version: printed by `--version`, written into pages, indexes and build.json.
public enum AdhocBuildVersion {
    public static let current = "0.1.0"
}

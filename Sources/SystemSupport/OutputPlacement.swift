/// Where an output goes relative to the input a command reads: an output inside the input folder
/// changes the input as it is read (`release --out ShoutOut.app/dist` copied the app into its own
/// copy until the path was too long; `package -o X.app/out.ipa` added the ipa to the app it packed).
///
/// Paths are compared as the kernel finds them: links, `.` and `..` resolved in the part that
/// exists, the rest as given.
public enum OutputPlacement {
    /// `path` with its nearest existing folder resolved (``FileIO/realPath(_:)``) and the missing
    /// names below it as given, absolute.
    public static func resolved(_ path: String) -> String {
        if let real = FileIO.realPath(path) { return real }
        let name = FileIO.split(path).name
        let (existing, missing) = FileIO.missingFolders(above: path)
        let top = FileIO.realPath(existing) ?? existing
        return (top == "/" ? "" : top) + "/" + (missing + [name]).joined(separator: "/")
    }

    /// Whether `inner` is `outer` itself or inside it, both as ``resolved(_:)`` gives them.
    public static func isWithin(_ inner: String, _ outer: String) -> Bool {
        let (inner, outer) = (resolved(inner), resolved(outer))
        return inner == outer || inner.hasPrefix(outer == "/" ? "/" : outer + "/")
    }

    /// Refuses, before anything is written, an `output` (as the user gave it) that is the folder
    /// `input` or inside it, in one line naming both: `ShoutOut.app/dist: is inside the input
    /// ShoutOut.app, which writing it would change; write it somewhere else`. An input that is not a
    /// folder (an ipa) holds nothing, and standard output (`-`) is nowhere.
    public static func checkOutside(_ output: String, input: String) throws {
        guard output != "-", FileIO.kind(of: input) == .folder, isWithin(output, input) else { return }
        let relation = resolved(output) == resolved(input) ? "is the input" : "is inside the input"
        throw Diagnostic.io("\(relation) \(input), which writing it would change; write it somewhere else", file: output)
    }
}

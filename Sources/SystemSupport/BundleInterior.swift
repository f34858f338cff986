import Foundation

/// The files of a bundle that adhocbuild changes (its Info.plist, `environment.plist`, a nested
/// bundle's Info.plist) must really be inside the bundle.
///
/// A write follows symbolic links on purpose for outputs the user named (``WriteDestination``), but
/// a bundle's own files are the build's: an `Info.plist` that is a link to `/home/ci/.ssh/config`,
/// or an `.appex` that is a link to a folder elsewhere, would have a file outside the bundle
/// rewritten. So every link on the way from the bundle to the file, the file itself included, must
/// lead to a place inside the bundle.
public enum BundleInterior {
    /// Throws, naming the link and where it leads, when `path` (a path under `bundle`) or a folder
    /// on the way to it is a symbolic link that leads outside `bundle`, or to nothing.
    public static func check(_ path: String, bundle: String) throws {
        let top = bundle.hasSuffix("/") && bundle.count > 1 ? String(bundle.dropLast()) : bundle
        guard path.hasPrefix(top + "/") else {
            throw Diagnostic.io("is not inside the bundle \(top), so adhocbuild does not change it", file: path)
        }
        guard let realTop = FileIO.realPath(top) else { return }  // no bundle: the write fails naming it
        var current = top
        for component in path.dropFirst(top.count + 1).split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + component
            var info = stat()
            guard lstat(current, &info) == 0 else { return }  // not there yet: made inside what was checked
            guard info.st_mode & S_IFMT == S_IFLNK else { continue }
            let target = FileIO.linkTarget(current) ?? "?"
            guard let resolved = FileIO.realPath(current) else {
                throw Diagnostic.io(
                    "is a symbolic link to '\(UntrustedText.line(target))', which leads to nothing; adhocbuild does not write through it",
                    file: current)
            }
            guard resolved == realTop || resolved.hasPrefix(realTop == "/" ? "/" : realTop + "/") else {
                throw Diagnostic.io(
                    "is a symbolic link to '\(UntrustedText.line(target))', which leads outside the bundle (to \(UntrustedText.line(resolved))); "
                        + "adhocbuild does not change files outside it", file: current)
            }
        }
    }
}

import Foundation
import Manifest
import SystemSupport

/// Where `release` publishes in DIST, and how: `DIST/<env>/<version>-<build>/`, the `latest` link
/// beside it and `DIST/index.html`.
///
/// ``check()`` runs before the release changes anything in DIST, and again under DIST's lock just
/// before publishing: a `latest` that is a real folder or file, a file where a folder goes, or an index
/// that is a folder fails the release before anything is published. ``publish(_:as:replace:indexTitle:)``
/// is all or nothing: when `latest` or the index cannot be written, the release folder, the link and any
/// release it replaced are put back as they were, so the same release succeeds once the cause is fixed
/// instead of being refused as already published. A release folder is moved into DIST holding the file
/// ``incompleteMarker``, removed once `latest` and the index are written: a run killed in between leaves
/// a release that the next one recognises as not finished and publishes again, without `--replace`.
struct ReleasePublication {
    /// The file in a release folder whose publication has not finished (its `latest` link and the index
    /// not yet written).
    static let incompleteMarker = ".adhocbuild-unfinished"

    /// DIST.
    var out: String
    var environment: String
    /// Writes DIST's index with a title and returns its problems (a test makes it fail).
    var writeIndex: (_ out: String, _ title: String) throws -> [String] = { try BuildIndex.write(in: $0, title: $1).problems }

    var environmentFolder: String { out + "/" + environment }
    var latest: String { environmentFolder + "/latest" }
    var index: String { out + "/index.html" }

    /// What publishing writes can be written: DIST and the environment's folder are folders (or not
    /// there yet) that can be written into, `latest` is a link (or not there yet) and the index a file.
    func check() throws {
        try Self.checkFolder(out)
        try Self.checkFolder(environmentFolder)
        var info = stat()
        if lstat(latest, &info) == 0, info.st_mode & S_IFMT != S_IFLNK {
            let kind = info.st_mode & S_IFMT == S_IFDIR ? "a folder" : "a file"
            throw Diagnostic.build(
                "is \(kind) where adhocbuild keeps a link to the newest release; move it away and release again", file: latest)
        }
        _ = try WriteDestination.of(index)
    }

    /// Refuses a release `name` that is already published (not one whose publication a killed run left
    /// unfinished), unless `replace`.
    func checkNotPublished(_ name: String, replace: Bool) throws {
        let releaseFolder = environmentFolder + "/" + name
        var info = stat()
        guard !replace, lstat(releaseFolder, &info) == 0, !Self.isUnfinished(releaseFolder) else { return }
        throw Diagnostic.build(
            "is already published, and testers may be installing it; give the build a new number, "
                + "or pass --replace to replace it", file: releaseFolder)
    }

    /// Whether the release folder at `path` was moved into DIST by a run that stopped before its `latest`
    /// link and the index were written.
    static func isUnfinished(_ path: String) -> Bool {
        var info = stat()
        return lstat(path + "/" + incompleteMarker, &info) == 0
    }

    /// A folder a release writes into: absent (made when publishing) or a folder it may write in.
    static func checkFolder(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if lstat(path, &info) == 0 { throw Diagnostic.io("is a symbolic link to nothing", file: path) }
            return
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw Diagnostic.io("is a file, not a folder", file: path) }
        guard access(path, W_OK | X_OK) == 0 else { throw Diagnostic.system("cannot be written", file: path, code: errno) }
    }

    /// Moves the assembled release folder `staged` (inside DIST) to `DIST/<env>/<name>` (swapping it with
    /// one there only with `replace` or when that one is unfinished, the old one then left at `staged`), points `latest` at it and
    /// rewrites the index; returns the index's problems. Run under DIST's lock. Temporary files that
    /// killed runs left in the environment's folder are removed first.
    func publish(_ staged: String, as name: String, replace: Bool, indexTitle: String) throws -> [String] {
        if FileIO.kind(of: environmentFolder) == .folder { FileIO.removeStaleTemporaries(in: environmentFolder) }
        try check()
        let releaseFolder = environmentFolder + "/" + name
        // What has been done, undone in reverse when a later step fails.
        var undo: [() -> Void] = []
        let marker = staged + "/" + Self.incompleteMarker
        do {
            if FileIO.kind(of: environmentFolder) == nil {
                try FileIO.createFolder(environmentFolder)
                undo.append { [environmentFolder] in _ = rmdir(environmentFolder) }
            }
            try checkNotPublished(name, replace: replace)
            let fd = open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw Diagnostic.system("cannot be written", file: releaseFolder) }
            close(fd)
            var info = stat()
            if lstat(releaseFolder, &info) == 0 {
                // Replaced (--replace), or one a killed run left unfinished, published again.
                try FileIO.exchange(staged, releaseFolder)
                undo.append { try? FileIO.exchange(staged, releaseFolder) }
            } else {
                guard rename(staged, releaseFolder) == 0 else { throw Diagnostic.system("cannot be written", file: releaseFolder) }
                undo.append { _ = rename(releaseFolder, staged) }
            }
            Interruption.pause(at: "publish:moved into DIST")
            let previous = FileIO.linkTarget(latest)
            try Self.point(latest, at: name)
            undo.append { [latest] in
                if let previous { try? Self.point(latest, at: previous) } else { _ = unlink(latest) }
            }
            let problems = try writeIndex(out, indexTitle)
            unlink(releaseFolder + "/" + Self.incompleteMarker)
            return problems
        } catch {
            for step in undo.reversed() { step() }
            unlink(marker)  // the release is back where it was assembled, as it was
            throw error
        }
    }

    /// Makes `link` a symbolic link to `target` in one step: a new link under a temporary name,
    /// renamed over it (and removed when that fails).
    static func point(_ link: String, at target: String) throws {
        let temporary = FileIO.temporaryPath(for: link)
        guard symlink(target, temporary) == 0 else { throw Diagnostic.system("cannot be updated", file: link) }
        guard rename(temporary, link) == 0 else {
            let code = errno
            unlink(temporary)
            throw Diagnostic.system("cannot be updated", file: link, code: code)
        }
    }
}

import Foundation
import SystemSupport

/// Where `adhocbuild.plist` is found when no `--project-file` names one: in the current folder or the
/// nearest folder above it, up to the repository's top (the first folder holding `.git`) or the
/// filesystem root, as git finds its repository, so a CI step run from a subfolder finds the file
/// at the project's top.
public struct ProjectFileSearch: Sendable, Equatable {
    /// The folders looked in, nearest first (absolute).
    public var folders: [String]
    /// The file found, relative to the folder searched from (`adhocbuild.plist`, `../adhocbuild.plist`).
    public var found: String?
    /// Whether the search stopped at a repository's top (a folder holding `.git`).
    public var endsAtRepository: Bool

    /// Searches from `folder` (absolute; by default the current folder) upwards.
    public init(from folder: String = FileManager.default.currentDirectoryPath) {
        folders = []
        found = nil
        endsAtRepository = false
        let (parent, name) = FileIO.split(folder)
        var current = name == "/" ? "/" : (parent == "/" ? "" : parent) + "/" + name
        var relative = ""
        while true {
            folders.append(current)
            let candidate = (current == "/" ? "" : current) + "/" + ProjectFile.defaultName
            if FileIO.kind(of: candidate) == .file {
                found = relative + ProjectFile.defaultName
                return
            }
            if FileManager.default.fileExists(atPath: (current == "/" ? "" : current) + "/.git") {
                endsAtRepository = true
                return
            }
            guard current != "/" else { return }
            current = FileIO.split(current).folder
            relative += "../"
        }
    }

    /// Where it looked, for a message when nothing was found: `no adhocbuild.plist in /repo/app or the
    /// folders above it up to /repo (the repository's top)`.
    public var notFound: String {
        let top = folders.last ?? "/"
        let end = endsAtRepository ? " (the repository's top)" : " (the filesystem root; no .git above)"
        guard folders.count > 1, let first = folders.first else { return "no \(ProjectFile.defaultName) in \(top)\(end)" }
        return "no \(ProjectFile.defaultName) in \(first) or the folders above it up to \(top)\(end)"
    }
}

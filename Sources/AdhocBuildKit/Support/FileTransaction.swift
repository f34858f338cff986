import Foundation
import PlistKit
import SystemSupport

/// Several files written together: every new content is prepared and written to a temporary
/// file beside its target before any target is replaced, so a problem with one file (a folder
/// in its place, a full disk) leaves all of them as they were. Committing also removes temporary
/// files that killed runs left beside every file the transaction looked at, written or not, and
/// beside the bundle.
public struct FileTransaction {
    private var pending: [(path: String, data: Data)] = []
    private var considered: [String] = []

    /// The bundle every file written must really be inside (``BundleInterior``), when the files are
    /// a bundle's own; nil for files the user named (a project's Info.plist, `-o`).
    public var bundle: String?

    /// A transaction; with `bundle`, each file it writes must be inside that bundle, no link leading out.
    public init(bundle: String? = nil) {
        self.bundle = bundle
    }

    public var isEmpty: Bool { pending.isEmpty }

    /// Notes a file that was looked at but needs no change, so its folder is tidied on commit.
    public mutating func leaveUnchanged(_ path: String) {
        considered.append(path)
    }

    /// Adds a file to write; a later write to the same path replaces an earlier one.
    public mutating func write(_ bytes: Data, to path: String) {
        pending.removeAll { $0.path == path }
        pending.append((path, bytes))
    }

    /// Adds a plist to write in its own format.
    public mutating func write(_ plist: PropertyList, to path: String) throws {
        write(try inFile(path, only: PlistProblem.self) { try plist.data() }, to: path)
    }

    /// Writes every file to a temporary file, then renames them all into place; with ``bundle``,
    /// refuses before writing anything when a file or a folder on its way is a link leading out.
    public func commit() throws {
        if let bundle { for file in pending { try BundleInterior.check(file.path, bundle: bundle) } }
        try FileIO.writeAtomically(together: pending)
        // Beside a bundle: the copies a killed signing run (env apply, version bump with a signer) left.
        let besideBundle = bundle.map { [FileIO.split($0).folder] } ?? []
        let folders = Set(considered.map { ($0 as NSString).deletingLastPathComponent } + besideBundle)
            .subtracting(pending.map { ($0.path as NSString).deletingLastPathComponent })
        for folder in folders.sorted() { FileIO.removeStaleTemporaries(in: folder) }
    }
}

import Foundation
import SystemSupport

/// One entry of a bundle as a resource seal sees it: a regular file with its SHA-1 and SHA-256, or a
/// symbolic link with its target. Paths are relative to the bundle (`Base.lproj/Main.storyboardc/Info.plist`).
public struct BundleResource: Sendable, Equatable {
    public enum Content: Sendable, Equatable {
        case file(sha1: [UInt8], sha256: [UInt8])
        case symlink(target: String)
    }

    public var path: String
    public var content: Content

    public init(path: String, content: Content) {
        self.path = path
        self.content = content
    }

    /// A regular file at `path` holding `bytes`.
    public static func file(_ path: String, bytes: some ContiguousBytes) -> BundleResource {
        BundleResource(path: path, content: .file(sha1: Digest.sha1(bytes), sha256: Digest.sha256(bytes)))
    }

    /// Every regular file and symbolic link under the bundle folder `folder` (links are not followed),
    /// each file read in pieces so memory stays bounded, files hashed on all cores; a file whose
    /// digests `cache` holds (a copy made by ``HashingCopy``, unchanged since) is not read again.
    /// Paths in `excluding` (the bundle's executable, which CodeResources does not seal) are left out.
    /// The files the cache says were left in their archive under `folder`, not written, are there
    /// too, with their digests, unless something was put in their place. Errors are one line naming
    /// the file.
    public static func scan(folder: String, cache: DigestCache? = nil, excluding: Set<String> = []) throws -> [BundleResource] {
        let manager = FileManager.default
        let hashed = Locked<[BundleResource]>([])
        var found: [BundleResource] = []
        let left = cache?.leftInArchive(under: folder) ?? []
        // What the walk meets, when files left in the archive must be told from those put in their place.
        var seen = Set<String>()
        let pool = WorkerPool(label: "adhocbuild.scan", capacity: 2 * Processors.usable)
        do {
            try FolderWalk.walk(folder) { relative, path, info in
                if !left.isEmpty { seen.insert(relative) }
                switch info.st_mode & S_IFMT {
                case S_IFLNK:
                    do {
                        found.append(
                            BundleResource(path: relative, content: .symlink(target: try manager.destinationOfSymbolicLink(atPath: path))))
                    } catch {
                        throw Diagnostic.codeSign(.unreadable, "cannot read the link: \(FoundationError.reason(error))", file: path)
                    }
                case S_IFREG:
                    if excluding.contains(relative) { break }
                    if let known = cache?.content(of: path, info: info) {
                        found.append(BundleResource(path: relative, content: known))
                    } else {
                        pool.submit {
                            let file = BundleResource(path: relative, content: try digests(ofFileAt: path))
                            hashed.withLock { $0.append(file) }
                        }
                    }
                default:
                    break
                }
                return !pool.hasFailed
            }
        } catch {
            _ = try? pool.wait()
            throw error
        }
        try pool.wait()
        for file in left where !seen.contains(file.relative) && !excluding.contains(file.relative) {
            found.append(BundleResource(path: file.relative, content: file.content))
        }
        return sorted(found + hashed.value)
    }

    /// `resources` in the order of their paths' UTF-8 bytes (``UTF8Order/precedes(_:_:)``), each
    /// path's bytes taken once.
    static func sorted(_ resources: [BundleResource]) -> [BundleResource] {
        let keys = resources.map { Array($0.path.utf8) }
        return keys.indices.sorted { keys[$0].lexicographicallyPrecedes(keys[$1]) }.map { resources[$0] }
    }

    /// The SHA-1 and SHA-256 of the file at `path`, read once in pieces.
    static func digests(ofFileAt path: String) throws -> Content {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Diagnostic.codeSign(.unreadable, "cannot be read", file: path) }
        defer { try? handle.close() }
        let sha1 = DigestStream(.sha1), sha256 = DigestStream(.sha256)
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            } catch {
                throw Diagnostic.codeSign(.unreadable, "cannot be read: \(FoundationError.reason(error))", file: path)
            }
            if chunk.isEmpty { break }
            chunk.withUnsafeBytes { buffer in
                sha1.update(buffer)
                sha256.update(buffer)
            }
        }
        return .file(sha1: sha1.finish(), sha256: sha256.finish())
    }
}

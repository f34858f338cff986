import Foundation

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
    /// each file read in pieces so memory stays bounded; errors are one line naming the file.
    public static func scan(folder: String) throws -> [BundleResource] {
        let manager = FileManager.default
        guard let walker = manager.enumerator(atPath: folder) else {
            throw CodeSignError("cannot be listed", file: folder)
        }
        var found: [BundleResource] = []
        while let relative = walker.nextObject() as? String {
            let path = folder + "/" + relative
            let attributes: [FileAttributeKey: Any]
            do {
                attributes = try manager.attributesOfItem(atPath: path)
            } catch {
                throw CodeSignError("cannot be read: \(error.localizedDescription)", file: path)
            }
            switch attributes[.type] as? FileAttributeType {
            case .typeSymbolicLink?:
                do {
                    found.append(
                        BundleResource(path: relative, content: .symlink(target: try manager.destinationOfSymbolicLink(atPath: path))))
                } catch {
                    throw CodeSignError("cannot read the link: \(error.localizedDescription)", file: path)
                }
            case .typeRegular?:
                found.append(BundleResource(path: relative, content: try digests(ofFileAt: path)))
            default:
                continue
            }
        }
        return found.sorted { CodeResources.precedes($0.path, $1.path) }
    }

    /// The SHA-1 and SHA-256 of the file at `path`, read once in pieces.
    static func digests(ofFileAt path: String) throws -> Content {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CodeSignError("cannot be read", file: path) }
        defer { try? handle.close() }
        let sha1 = DigestStream(.sha1), sha256 = DigestStream(.sha256)
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            } catch {
                throw CodeSignError("cannot be read: \(error.localizedDescription)", file: path)
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

import Foundation

/// One entry of ``TemporaryFolder/listing(_:)``: what is at a path, links not followed.
public enum ListedEntry: Equatable, Sendable, CustomStringConvertible {
    case folder
    case link(String)
    case file(Data)

    public var description: String {
        switch self {
        case .folder: return "folder"
        case .link(let target): return "link to \(target)"
        case .file(let data): return "file of \(data.count) bytes"
        }
    }
}

extension TemporaryFolder {
    /// Every entry under `relative` (the whole folder by default), dot-files, folders and links
    /// included, by path relative to it: to show that a command left a folder exactly as it was.
    public func listing(_ relative: String = "") -> [String: ListedEntry] {
        let root = relative.isEmpty ? url.path : path(relative)
        var result: [String: ListedEntry] = [:]
        func walk(_ prefix: String) {
            let folder = prefix.isEmpty ? root : root + "/" + prefix
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
                let key = prefix.isEmpty ? name : prefix + "/" + name
                let full = root + "/" + key
                var info = stat()
                guard lstat(full, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFDIR:
                    result[key] = .folder
                    walk(key)
                case S_IFLNK:
                    result[key] = .link((try? FileManager.default.destinationOfSymbolicLink(atPath: full)) ?? "?")
                default:
                    result[key] = .file(FileManager.default.contents(atPath: full) ?? Data())
                }
            }
        }
        walk("")
        return result
    }
}

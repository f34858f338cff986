import Foundation
import PlistKit

/// Several files written together: every new content is prepared and written to a temporary
/// file beside its target before any target is replaced, so a problem with one file (a folder
/// in its place, a full disk) leaves all of them as they were.
public struct FileTransaction {
    private var pending: [(path: String, bytes: Data)] = []

    public init() {}

    public var isEmpty: Bool { pending.isEmpty }

    /// Adds a file to write; a later write to the same path replaces an earlier one.
    public mutating func write(_ bytes: Data, to path: String) {
        pending.removeAll { $0.path == path }
        pending.append((path, bytes))
    }

    /// Adds a plist to write in its own format.
    public mutating func write(_ plist: PropertyList, to path: String) throws {
        do { write(try plist.data(), to: path) } catch let error as PlistError { throw AdhocBuildError(error.inFile(path)) }
    }

    /// Writes every file to a temporary file, then renames them all into place.
    public func commit() throws {
        var writers: [AtomicFileWriter] = []
        do {
            for (path, bytes) in pending {
                let writer = try AtomicFileWriter(path: path)
                writers.append(writer)
                try bytes.withUnsafeBytes { try FileIO.writeAll(writer.fileDescriptor, $0) }
            }
            for writer in writers { try writer.commit() }
        } catch let error as PlistError {
            for writer in writers { writer.abort() }
            throw AdhocBuildError(error.file == nil ? error.inFile(writers.last?.path ?? "") : error)
        }
    }
}

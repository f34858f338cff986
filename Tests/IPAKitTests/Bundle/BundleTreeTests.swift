import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import IPAKit

/// The walk lists a folder depth first with names in byte order at each level, however deep,
/// opening each subfolder relative to its parent.
@Suite struct BundleTreeTests {
    /// The same order, found another way: FileManager's listing of each folder, sorted by bytes.
    static func expectedPaths(of root: String, prefix: String) throws -> [String] {
        var result = [prefix + "/"]
        let names = try FileManager.default.contentsOfDirectory(atPath: root).sorted {
            Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8))
        }
        for name in names {
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isFolder)
            if isFolder.boolValue {
                result += try expectedPaths(of: root + "/" + name, prefix: prefix + "/" + name)
            } else {
                result.append(prefix + "/" + name)
            }
        }
        return result
    }

    @Test(arguments: [1, 2, 4])
    func aDeepTreeIsListedDepthFirstInByteOrder(threads: Int) throws {
        try withTemporaryFolder { folder in
            var path = folder.path("Deep.app")
            for level in 0..<60 {
                path += "/level\(level % 7)-\(level).bundle"
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
                for name in ["b.plist", "a.txt", "é.strings", "Z", "a"] where (level + name.count) % 3 != 0 {
                    try Data("\(level) \(name)".utf8).write(to: URL(fileURLWithPath: path + "/" + name))
                }
                try FileManager.default.createDirectory(atPath: path + "/a.lproj", withIntermediateDirectories: true)
            }
            for level in 0..<20 {
                let side = folder.path("Deep.app/side\(level % 3)/\(level)")
                try FileManager.default.createDirectory(atPath: side, withIntermediateDirectories: true)
                try Data("side \(level)".utf8).write(to: URL(fileURLWithPath: side + "/file"))
            }
            try Data("top".utf8).write(to: URL(fileURLWithPath: folder.path("Deep.app/Info.plist")))
            let entries = try BundleTree.entries(of: folder.path("Deep.app"), prefix: "Payload/Deep.app", threads: threads)
            #expect(entries.map(\.archivePath) == (try Self.expectedPaths(of: folder.path("Deep.app"), prefix: "Payload/Deep.app")))
            #expect(entries.count > 300)
            for entry in entries {
                let relative = entry.archivePath.dropFirst("Payload/Deep.app".count)
                let source = folder.path("Deep.app") + (relative.hasSuffix("/") ? String(relative.dropLast()) : String(relative))
                #expect(entry.sourcePath == source)
                if case .file = entry.kind {
                    #expect(entry.size == Int64((try Data(contentsOf: URL(fileURLWithPath: source))).count))
                }
            }
        }
    }

    /// Listed for its names, kinds and links alone (``BundleTree/entries(of:prefix:threads:statsFiles:)``
    /// without `statsFiles`), a tree gives the same entries in the same order, with the same links
    /// checked; only files' sizes and modes are left out.
    @Test(arguments: [1, 4])
    func aListingWithoutFileDetailsHasTheSameEntriesAndRefusesTheSameLinks(threads: Int) throws {
        try withTemporaryFolder { folder in
            let app = folder.path("Kinds.app")
            for index in 0..<120 {
                try folder.create("Kinds.app/F\(index % 4)/\(index % 7)/\(index).txt", Data(repeating: 1, count: index))
            }
            try FileManager.default.createSymbolicLink(atPath: app + "/F1/inside", withDestinationPath: "../F2")
            let full = try BundleTree.entries(of: app, prefix: "Payload/Kinds.app", threads: threads)
            let kinds = try BundleTree.entries(of: app, prefix: "Payload/Kinds.app", threads: threads, statsFiles: false)
            #expect(kinds.map(\.archivePath) == full.map(\.archivePath))
            #expect(kinds.map { "\($0.kind)" } == full.map { "\($0.kind)" })
            #expect(kinds.filter { if case .file = $0.kind { return $0.size != 0 } else { return false } }.isEmpty)
            try FileManager.default.createSymbolicLink(atPath: app + "/F3/out", withDestinationPath: "/etc/passwd")
            #expect(throws: Diagnostic.self) {
                try BundleTree.entries(of: app, prefix: "Payload/Kinds.app", threads: threads, statsFiles: false)
            }
        }
    }

    /// Subfolders walked side by side still report the first problem in document order: the
    /// link in the first folder, however much sooner the second folder's walk finishes.
    @Test(arguments: [1, 4])
    func theFirstProblemInOrderIsReported(threads: Int) throws {
        try withTemporaryFolder { folder in
            let app = folder.path("Links.app")
            for index in 0..<300 {
                try folder.create("Links.app/A/\(index / 30)/\(index).txt", Data("\(index)".utf8))
            }
            try FileManager.default.createSymbolicLink(atPath: app + "/A/9/zz", withDestinationPath: "/etc/passwd")
            try folder.create("Links.app/B/file", Data("b".utf8))
            try FileManager.default.createSymbolicLink(atPath: app + "/B/up", withDestinationPath: "../../..")
            let error = try requireDiagnostic(IPAProblem.self) {
                _ = try BundleTree.entries(of: app, prefix: "Payload/Links.app", threads: threads)
            }
            #expect(error.file == app + "/A/9/zz")
        }
    }
}

import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import IPAKit

/// A folder indexed by kinds alone (no `lstat` per entry) holds what the full index holds, but
/// sizes and permissions; whatever is out of the ordinary is left to the full walk, so the error
/// is the one it always was.
@Suite struct FolderKindIndexTests {
    /// An app of every kind of entry a bundle holds: files at several depths, empty folders, names
    /// that are not ASCII, an executable, the two names a walk leaves out, and links to a file and
    /// to a folder inside.
    static func makeApp(in folder: TemporaryFolder) throws -> String {
        let app = folder.path("Kinds.app")
        for index in 0..<120 {
            try folder.create("Kinds.app/Assets/\(index % 7)/\(index / 7)/r\(index).png", Data(repeating: UInt8(index), count: index * 13))
        }
        try folder.create("Kinds.app/Info.plist", Data("<plist/>".utf8))
        try folder.create("Kinds.app/Kinds", Data("code".utf8))
        chmod(app + "/Kinds", 0o755)
        try folder.create("Kinds.app/é.lproj/Localizable.strings", Data("\"a\" = \"b\";".utf8))
        try folder.create("Kinds.app/.DS_Store", Data("x".utf8))
        try folder.create("Kinds.app/__MACOSX/x", Data("x".utf8))
        try folder.create("Kinds.app/Sub/.DS_Store", Data("x".utf8))
        try FileManager.default.createDirectory(atPath: app + "/Empty/Inner", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: app + "/Sub/link.png", withDestinationPath: "../Assets/1/0/r1.png")
        try FileManager.default.createSymbolicLink(atPath: app + "/Current", withDestinationPath: "Assets/2")
        return app
    }

    @Test func holdsTheFullIndexsPathsKindsAndLinks() throws {
        try withTemporaryFolder { folder in
            let app = try Self.makeApp(in: folder)
            let full = try FolderStorage(app: app).files
            let kinds = try #require(FolderKindIndex.index(of: app, prefix: "Kinds.app"))
            #expect(Set(kinds.keys) == Set(full.keys))
            #expect(kinds.count > 120)
            #expect(kinds[".DS_Store"] == nil && kinds["Kinds.app/.DS_Store"] == nil && kinds["Kinds.app/__MACOSX"] == nil)
            for (path, file) in full {
                let kind = try #require(kinds[path])
                #expect(kind.isDirectory == file.isDirectory, "\(path)")
                #expect(kind.isSymlink == file.isSymlink, "\(path)")
                if file.isSymlink {
                    #expect(kind.size == file.size, "\(path)")
                } else if !file.isDirectory {
                    #expect(kind.size == BundleFile.unknownSize, "\(path)")
                    #expect(!kind.isExecutable, "\(path)")
                }
            }
            // The storage opened for kinds reads the same bytes.
            let storage = try FolderStorage(app: app, detail: .kinds)
            #expect(storage.files.count == full.count)
            #expect(try storage.read("Kinds.app/Kinds") == Data("code".utf8))
        }
    }

    /// The walk hands on each folder's regular files as it lists the folder: every file once, no
    /// folder or link, a folder's files in one piece and before those of any folder inside it.
    @Test func handsOnEachFoldersFilesAsItListsThem() throws {
        try withTemporaryFolder { folder in
            let app = try Self.makeApp(in: folder)
            let handed = Locked<[[String]]>([])
            let index = try #require(FolderKindIndex.index(of: app, prefix: "Kinds.app") { keys in handed.withLock { $0.append(keys) } })
            let batches = handed.value
            let files = index.filter { !$0.value.isDirectory && !$0.value.isSymlink }.keys
            #expect(batches.flatMap { $0 }.sorted() == files.sorted())
            let folders = batches.map { batch in Set(batch.map { ($0 as NSString).deletingLastPathComponent }) }
            #expect(folders.allSatisfy { $0.count == 1 })
            let order = folders.map { $0.first! }
            for (position, name) in order.enumerated() {
                for (later, inner) in order.enumerated() where inner.hasPrefix(name + "/") {
                    #expect(later > position, "\(inner) before \(name)")
                }
            }
        }
    }

    /// A link that leads outside, or an entry that is no file, folder or link: no index, and the
    /// storage throws what the full walk throws, for the same entry.
    @Test(arguments: ["outside", "fifo", "absolute"])
    func leavesWhatIsOutOfTheOrdinaryToTheFullWalk(problem: String) throws {
        try withTemporaryFolder { folder in
            let app = try Self.makeApp(in: folder)
            switch problem {
            case "outside": try FileManager.default.createSymbolicLink(atPath: app + "/Assets/3/up", withDestinationPath: "../../..")
            case "fifo": #expect(mkfifo(app + "/Assets/pipe", 0o644) == 0)
            default: try FileManager.default.createSymbolicLink(atPath: app + "/Sub/abs", withDestinationPath: "/etc/passwd")
            }
            #expect(FolderKindIndex.index(of: app, prefix: "Kinds.app") == nil)
            let full = try requireDiagnostic(IPAProblem.self) { _ = try FolderStorage(app: app) }
            let kinds = try requireDiagnostic(IPAProblem.self) { _ = try FolderStorage(app: app, detail: .kinds) }
            #expect(kinds.description == full.description)
        }
    }
}

import Foundation
import TestSupport
import Testing

@testable import SystemSupport

/// Files written together are all checked (each written under its temporary name) before the
/// caller's own change runs and before any is renamed into place.
@Suite struct TogetherWriteTests {
    @Test func theCallersChangeComesAfterEveryFileIsWrittenAndBeforeAnyIsRenamed() throws {
        try withTemporaryFolder { folder in
            try folder.create("index.html", Data("old".utf8))
            var seen: [String] = []
            try FileIO.writeAtomically(together: [(folder.path("index.html"), Data("new".utf8)), (folder.path("a.json"), Data("{}".utf8))])
            {
                seen = Leftover.names(in: folder.url.path)
                #expect(folder.listing()["index.html"] == .file(Data("old".utf8)))
            }
            #expect(seen.count == 2)
            #expect(folder.listing() == ["index.html": .file(Data("new".utf8)), "a.json": .file(Data("{}".utf8))])
        }
    }

    @Test func aTargetThatCannotBeWrittenFailsBeforeTheCallersChange() throws {
        try withTemporaryFolder { folder in
            try FileManager.default.createDirectory(atPath: folder.path("index.html"), withIntermediateDirectories: false)
            var ran = false
            #expect(throws: Diagnostic.io("is a folder, not a file", file: folder.path("index.html"))) {
                try FileIO.writeAtomically(together: [(folder.path("a.json"), Data()), (folder.path("index.html"), Data())]) { ran = true }
            }
            #expect(!ran)
            #expect(folder.listing() == ["index.html": .folder])
        }
    }

    @Test func aFailingChangeLeavesEveryTargetAsItWas() throws {
        try withTemporaryFolder { folder in
            try folder.create("index.html", Data("old".utf8))
            struct Refused: Error {}
            #expect(throws: Refused.self) {
                try FileIO.writeAtomically(together: [(folder.path("index.html"), Data("new".utf8))]) { throw Refused() }
            }
            #expect(folder.listing() == ["index.html": .file(Data("old".utf8))])
        }
    }
}

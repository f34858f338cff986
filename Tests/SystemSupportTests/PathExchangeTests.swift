import Foundation
import TestSupport
import Testing

@testable import SystemSupport

/// A folder replaced by a swap is never only under a temporary name, which a later run would remove
/// as a killed run's leftover (issue 31: `codesign sign` in place renamed the app away first).
@Suite struct PathExchangeTests {
    @Test func twoFoldersOrAFileAndAFolderChangePlaces() throws {
        try withTemporaryFolder { folder in
            try folder.create("new/Info.plist", Data("new".utf8))
            try folder.create("App.app/Info.plist", Data("old".utf8))
            try FileIO.exchange(folder.path("new"), folder.path("App.app"))
            #expect(
                folder.listing() == [
                    "App.app": .folder, "App.app/Info.plist": .file(Data("new".utf8)), "new": .folder,
                    "new/Info.plist": .file(Data("old".utf8))
                ])
            try folder.create("file", Data("f".utf8))
            try FileIO.exchange(folder.path("file"), folder.path("new"))
            #expect(folder.listing()["new"] == .file(Data("f".utf8)))
            #expect(folder.listing()["file/Info.plist"] == .file(Data("old".utf8)))
        }
    }

    @Test func nothingToSwapWithIsOneLineNamingWhatWasToBeReplaced() throws {
        try withTemporaryFolder { folder in
            try folder.create("App.app/Info.plist", Data("old".utf8))
            let before = folder.listing()
            #expect(throws: Diagnostic.system("cannot be replaced", file: folder.path("App.app"), code: ENOENT)) {
                try FileIO.exchange(folder.path("missing"), folder.path("App.app"))
            }
            #expect(folder.listing() == before)
        }
    }
}

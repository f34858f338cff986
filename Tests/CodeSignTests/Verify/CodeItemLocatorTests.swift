import Testing

@testable import CodeSign
@testable import IPAKit

/// Where the locator looks for nested code, decided by a path's bytes: the folders of its places
/// and the folders named as bundles, whatever else an app holds.
@Suite struct CodeItemLocatorTests {
    @Test(arguments: [
        ("A.app/Frameworks/X.framework", "A.app/Frameworks", "X.framework"),
        ("A.app/Frameworks/libswiftCore.dylib", "A.app/Frameworks", "libswiftCore.dylib"),
        ("A.app/PlugIns/E.appex/Info.plist", "A.app/PlugIns/E.appex", "Info.plist"),
        ("A.app/Watch/W.app/PlugIns", "A.app/Watch/W.app", "PlugIns"),
        ("A.app/Info.plist", "A.app", "Info.plist"),
        ("Payload/A.app/XPCServices/S.xpc", "Payload/A.app/XPCServices", "S.xpc")
    ])
    func aFileInAPlaceOfNestedCodeIsLookedAt(path: String, folder: String, name: String) throws {
        let found = try #require(CodeItemLocator.lookedIntoFolder(of: path))
        #expect(found.folder == folder && found.name == name)
    }

    @Test(arguments: ["A.app/Assets/x.png", "A.app/Frameworks.bak/X", "A.app/Foo.xapp/x", "A.app/Frameworks/X.framework.old/Y", "noslash"])
    func anyOtherFileIsNot(path: String) {
        #expect(CodeItemLocator.lookedIntoFolder(of: path) == nil)
    }

    /// The files under an item, relative to it, folders left out; another item's prefix is no match.
    @Test func filesUnderAnItemAreRelativeToIt() {
        let file = BundleFile(size: 1, isExecutable: false, isSymlink: false, isDirectory: false)
        let folder = BundleFile(size: 0, isExecutable: false, isSymlink: false, isDirectory: true)
        let locator = CodeItemLocator(files: [
            "A.app": folder, "A.app/Info.plist": file, "A.app/Frameworks": folder, "A.app/Frameworks/X.framework": folder,
            "A.app/Frameworks/X.framework/X": file, "A.app.bak/Info.plist": file
        ])
        #expect(Set(locator.filesUnder("A.app").map(\.path)) == ["Info.plist", "Frameworks/X.framework/X"])
        #expect(locator.filesUnder("A.app/Frameworks/X.framework").map(\.path) == ["X"])
        #expect(locator.locate(app: "A.app").nested.map(\.key) == ["A.app/Frameworks/X.framework"])
    }

    /// A name that starts with a combining mark makes one character with the `/` before it: the
    /// file is still under its folder (cut by bytes), so the check sees it (a character-wise
    /// `hasPrefix` left it out, unchecked, and called it missing when it was sealed).
    @Test func aNameStartingWithACombiningMarkIsUnderItsFolder() {
        let file = BundleFile(size: 1, isExecutable: false, isSymlink: false, isDirectory: false)
        let locator = CodeItemLocator(files: ["A.app/\u{301}x": file, "A.app/Sub/\u{301}y": file])
        #expect(Set(locator.filesUnder("A.app").map(\.path)) == ["\u{301}x", "Sub/\u{301}y"])
    }
}

import Foundation
import SystemSupport
import Testing

/// Issue 31, messages: an error found in a temporary copy names what the user gave, never
/// `.adhocbuild-tmp-…`: the bundle's own path, or the ipa and the entry in it.
@Suite struct PathRelocationTests {
    static let work = "/out/.adhocbuild-tmp-out.ipa-77.123-abc"

    @Test func aFileInAnUnpackedIpaIsTheIpaAndItsEntry() {
        let relocation = PathRelocation(copy: Self.work, original: .archive("in.ipa"))
        let error = Diagnostic.io("cannot be read: Permission denied", file: Self.work + "/Payload/X.app/Assets.car")
        let moved = relocation.relocate(error) as? Diagnostic
        #expect(moved?.description == "in.ipa: Payload/X.app/Assets.car: cannot be read: Permission denied")
    }

    @Test func theEntryComesBeforeThePlaceInsideIt() {
        let located = Diagnostic(
            .file(.io), "XML: Opening and ending tag mismatch", file: PathRelocationTests.work + "/Payload/X.app/Info.plist",
            places: [.line(1, column: 29)])
        let moved = PathRelocation(copy: Self.work, original: .archive("in.ipa")).relocate(located) as? Diagnostic
        #expect(moved?.description == "in.ipa: Payload/X.app/Info.plist: 1:29: XML: Opening and ending tag mismatch")
    }

    @Test func aCopiedBundleIsTheBundlesOwnPathInTheFileAndInTheText() {
        let copy = "/build/.adhocbuild-tmp-A.app-77.123-abc"
        let relocation = PathRelocation(copy: copy, original: .path("build/A.app"))
        let error = Diagnostic.io("is a link to '\(copy)/Other', which leads through \(copy)/Frameworks", file: copy + "/Info.plist")
        let moved = relocation.relocate(error) as? Diagnostic
        #expect(
            moved?.description == "build/A.app/Info.plist: is a link to 'build/A.app/Other', which leads through build/A.app/Frameworks")
        // A name that only starts like the copy's is another file.
        #expect(relocation.text(copy + "x/y") == copy + "x/y")
        #expect(relocation.text("at \(copy)") == "at build/A.app")
        #expect(relocation.text("\"\(copy)\", \(copy),\(copy)") == "\"build/A.app\", build/A.app,build/A.app")
    }

    @Test func errorsNamingNothingInTheCopyAreLeftAsTheyWere() {
        let relocation = PathRelocation(copy: Self.work, original: .archive("in.ipa"))
        let error = Diagnostic.io("is not a provisioning profile", file: "p.mobileprovision")
        #expect((relocation.relocate(error) as? Diagnostic) == error)
    }

    @Test func aFoundationErrorInTheCopyBecomesOneLineNamingTheEntry() {
        let relocation = PathRelocation(copy: Self.work, original: .archive("in.ipa"))
        let foundation = CocoaError(.fileWriteInvalidFileName, userInfo: [NSFilePathErrorKey: Self.work + "/Payload/X.app/a"])
        #expect(
            reportLines(for: relocation.relocate(foundation)) == [
                "in.ipa: Payload/X.app/a: the name is not valid here (too long, or not UTF-8)"
            ])
    }

    @Test func everyDiagnosticOfAListIsRelocated() {
        let list = Diagnostics([
            Diagnostic.io("is bad", file: Self.work + "/Payload/X.app/a"), Diagnostic.io("is bad too", file: Self.work + "/Payload/X.app/b")
        ])
        #expect(
            reportLines(for: PathRelocation(copy: Self.work, original: .archive("in.ipa")).relocate(list)) == [
                "in.ipa: Payload/X.app/a: is bad", "in.ipa: Payload/X.app/b: is bad too"
            ])
    }
}

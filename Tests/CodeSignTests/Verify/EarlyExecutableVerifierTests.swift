import Foundation
import IPAKit
import PlistKit
import TestSupport
import Testing

@testable import CodeSign

/// Verifying an app folder by its path starts hashing the main executable before the folder is
/// listed (``EarlyExecutableVerifier``); the report must be the one the plain check of the opened
/// package gives, whether the early start is taken or left to that check.
@Suite(Fixtures.enabled) struct EarlyExecutableVerifierTests {
    static let test = CodeSealTamperTests.test

    /// The report of `verify(path:)` (early start) and of `verify(AppPackage.open(path))` (none), as plists.
    static func bothReports(_ app: TamperedApp) throws -> (early: PlistDictionary, plain: PlistDictionary) {
        let verifier = CodeSealVerifier()
        return (try verifier.verify(path: app.app).plist(), try verifier.verify(AppPackage.open(app.app)).plist())
    }

    @Test func theUnpackedFixtureIsTakenEarly() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.test, in: folder)
            let early = try #require(EarlyExecutableVerifier.start(app: app.app))
            #expect(early.executable == "Test")
            #expect(early.codeResourcesData != nil)
            try early.pagePool.wait()
            let reports = try Self.bothReports(app)
            #expect(reports.early == reports.plain)
            #expect(reports.early["valid"] == .bool(true))
        }
    }

    /// Tampers the early start still takes: the same problems as the plain check.
    @Test(arguments: ["Info.plist", "CodeResources", "no CodeResources", "__TEXT"])
    func aTamperedAppReportsTheSameWhenTakenEarly(_ tamper: String) throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.test, in: folder)
            switch tamper {
            case "Info.plist":
                // The same values in other bytes (XML for binary): still readable, no longer sealed.
                try app.write("Info.plist", try PropertyList(data: app.data("Info.plist")).data(format: .xml))
            case "CodeResources": try app.flipByte("_CodeSignature/CodeResources", at: 400)
            case "no CodeResources": try FileManager.default.removeItem(atPath: app.path("_CodeSignature/CodeResources"))
            default: try app.flipByte("Test", at: 0x4010)
            }
            #expect(EarlyExecutableVerifier.start(app: app.app) != nil)
            let reports = try Self.bothReports(app)
            #expect(reports.early == reports.plain)
            #expect(reports.early["valid"] == .bool(false))
        }
    }

    /// Shapes the early start leaves to the plain check: the plain check's report, unchanged.
    @Test(arguments: ["executable is a link", "no CFBundleExecutable", "Info.plist is a link", "CodeResources is a folder"])
    func anUncommonShapeIsLeftToThePlainCheck(_ shape: String) throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.test, in: folder)
            let files = FileManager.default
            switch shape {
            case "executable is a link":
                try files.moveItem(atPath: app.path("Test"), toPath: app.path("Test.real"))
                try files.createSymbolicLink(atPath: app.path("Test"), withDestinationPath: "Test.real")
            case "no CFBundleExecutable":
                var info = try #require(try PropertyList(data: app.data("Info.plist")).value.dictionaryValue)
                info["CFBundleExecutable"] = nil
                try app.write("Info.plist", try PropertyList(.dictionary(info)).data(format: .xml))
            case "Info.plist is a link":
                try files.moveItem(atPath: app.path("Info.plist"), toPath: app.path("Info.real.plist"))
                try files.createSymbolicLink(atPath: app.path("Info.plist"), withDestinationPath: "Info.real.plist")
            default:
                try files.removeItem(atPath: app.path("_CodeSignature/CodeResources"))
                try files.createDirectory(atPath: app.path("_CodeSignature/CodeResources"), withIntermediateDirectories: false)
            }
            #expect(EarlyExecutableVerifier.start(app: app.app) == nil)
            let reports = try Self.bothReports(app)
            #expect(reports.early == reports.plain)
            #expect(reports.early["valid"] == .bool(false))
        }
    }
}

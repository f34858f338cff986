import Foundation
import SystemSupport
import TestSupport
import Testing

/// Issue 31, messages: an output inside the input is refused before anything is written, in one line
/// naming both (`release --out ShoutOut.app/dist` copied the app into itself until the path was too long).
@Suite struct OutputPlacementTests {
    @Test func anOutputInsideTheInputFolderIsRefusedNamingBoth() throws {
        try withTemporaryFolder { folder in
            let app = try folder.create("A.app/Info.plist", Data())
            let input = (app as NSString).deletingLastPathComponent
            let error = expectDiagnostic(FileProblem.self) { try OutputPlacement.checkOutside(input + "/dist", input: input) }
            #expect(
                error?.description == "\(input)/dist: is inside the input \(input), which writing it would change; write it somewhere else")
            let same = expectDiagnostic(FileProblem.self) { try OutputPlacement.checkOutside(input + "/.", input: input) }
            #expect(same?.message.hasPrefix("is the input \(input),") == true)
        }
    }

    @Test func linksAndDotDotAreResolvedBeforeComparing() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let input = (try folder.create("A.app/Info.plist", Data()) as NSString).deletingLastPathComponent
            try FileManager.default.createSymbolicLink(atPath: folder.path("into"), withDestinationPath: input)
            try FileManager.default.createDirectory(atPath: folder.path("elsewhere"), withIntermediateDirectories: true)
            for output in [folder.path("into/dist/x"), folder.path("elsewhere/../A.app/out.ipa"), input + "/Frameworks/../x"] {
                let refused = expectDiagnostic(FileProblem.self) { try OutputPlacement.checkOutside(output, input: input) }
                #expect(refused != nil, "\(output)")
            }
            // Beside the input, or in a folder whose name only starts like it, is outside.
            for output in [folder.path("dist"), folder.path("A.app2/out.ipa"), folder.path("elsewhere/x/y"), "-"] {
                #expect(throws: Never.self, "\(output)") { try OutputPlacement.checkOutside(output, input: input) }
            }
            // Through a link to the input itself, the input (a link) is found as its folder.
            expectDiagnostic(FileProblem.self) { try OutputPlacement.checkOutside(input + "/dist", input: folder.path("into")) }
        }
    }

    @Test func anInputThatIsAFileHoldsNothing() throws {
        try withTemporaryFolder { folder in
            let ipa = try folder.create("A.ipa", Data("zip".utf8))
            #expect(throws: Never.self) { try OutputPlacement.checkOutside(ipa + "/x", input: ipa) }
        }
    }
}

import Foundation
import SystemSupport
import TestSupport
import Testing

/// A bundle's own files are changed only where they really are inside the bundle: no link on the
/// way, the file's own included, may lead out of it.
@Suite struct BundleInteriorTests {
    @Test func filesAndLinksInsideTheBundleAreAllowed() throws {
        try withTemporaryFolder { folder in
            try folder.create("A.app/Info.plist", Data("x".utf8))
            try folder.create("A.app/Real.appex/Info.plist", Data("x".utf8))
            #expect(symlink("Real.appex", folder.path("A.app/Link.appex")) == 0)
            #expect(symlink("Info.plist", folder.path("A.app/Other.plist")) == 0)
            let app = folder.path("A.app")
            for path in ["Info.plist", "environment.plist", "Link.appex/Info.plist", "Other.plist", "New/Info.plist"] {
                try BundleInterior.check(app + "/" + path, bundle: app)
                try BundleInterior.check(app + "/" + path, bundle: app + "/")
            }
        }
    }

    @Test func aLinkLeadingOutOrToNothingIsRefusedNamingItAndWhereItLeads() throws {
        try withTemporaryFolder { folder in
            try folder.create("outside/Info.plist", Data("x".utf8))
            try folder.create("outside/X.appex/Info.plist", Data("x".utf8))
            try folder.create("A.app/PlugIns/keep", Data())
            let app = folder.path("A.app")
            let outside = try #require(FileIO.realPath(folder.path("outside")))
            #expect(symlink(folder.path("outside/Info.plist"), app + "/Info.plist") == 0)
            #expect(symlink("../../outside/X.appex", app + "/PlugIns/X.appex") == 0)
            #expect(symlink("../outside/none.plist", app + "/environment.plist") == 0)
            #expect(symlink("..", app + "/up") == 0)
            let cases = [
                ("Info.plist", "Info.plist", folder.path("outside/Info.plist"), outside + "/Info.plist"),
                ("PlugIns/X.appex/Info.plist", "PlugIns/X.appex", "../../outside/X.appex", outside + "/X.appex"),
                ("up/outside/Info.plist", "up", "..", try #require(FileIO.realPath(folder.path("."))))
            ]
            for (path, link, target, resolved) in cases {
                let error = expectDiagnostic(FileProblem.self) { try BundleInterior.check(app + "/" + path, bundle: app) }
                #expect(
                    error?.description
                        == "\(app)/\(link): is a symbolic link to '\(target)', which leads outside the bundle (to \(resolved)); "
                        + "adhocbuild does not change files outside it")
            }
            let dangling = expectDiagnostic(FileProblem.self) { try BundleInterior.check(app + "/environment.plist", bundle: app) }
            #expect(
                dangling?.description
                    == "\(app)/environment.plist: is a symbolic link to '../outside/none.plist', which leads to nothing; "
                    + "adhocbuild does not write through it")
            expectDiagnostic(FileProblem.self) { try BundleInterior.check(folder.path("B.app/Info.plist"), bundle: app) }
        }
    }
}

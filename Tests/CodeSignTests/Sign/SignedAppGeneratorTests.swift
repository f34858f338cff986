import CodeSign
import Foundation
import TestSupport
import Testing

@testable import IPAKit

/// bench/gen_signed_app.py makes the benchmark's signed app with hashlib; a small variant of it must
/// be a valid seal to this verifier (else the benchmark would time a failure), as a folder and as an
/// ipa, and an ipa's sealed files are hashed through one bounded buffer per read, whatever their size.
@Suite struct SignedAppGeneratorTests {
    /// Runs the generator into `folder` (BINARY_MB, RESOURCES_MB, seed 7, BIG_MB); returns the app's path.
    static func generate(_ folder: TemporaryFolder, binaryMB: String, resourcesMB: String, bigMB: String = "0") throws -> String {
        let python = try #require(ProcessResult.which("python3"))
        let script = Fixtures.packageRoot.appendingPathComponent("bench/gen_signed_app.py").path
        let run = try ProcessResult.run(python, [script, folder.url.path, binaryMB, resourcesMB, "7", bigMB])
        try #require(run.status == 0, "\(run.stderrText)")
        return folder.path("Bench.app")
    }

    /// Zips the app as `Payload/Bench.app/…` with Python's zipfile (deflate level 1).
    static func zip(_ folder: TemporaryFolder, app: String) throws -> String {
        let python = try #require(ProcessResult.which("python3"))
        let ipa = folder.path("Bench.ipa")
        let code = """
            import os, sys, zipfile
            app, out = sys.argv[1], sys.argv[2]
            with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED, compresslevel=1) as z:
                for d, _, names in os.walk(app):
                    for n in sorted(names):
                        p = os.path.join(d, n)
                        z.write(p, 'Payload/' + os.path.relpath(p, os.path.dirname(app)))
            """
        let run = try ProcessResult.run(python, ["-c", code, app, ipa])
        try #require(run.status == 0, "\(run.stderrText)")
        return ipa
    }

    @Test func theSmallVariantIsAValidSealAsAFolderAndAsAnIPA() throws {
        try withTemporaryFolder { folder in
            let app = try Self.generate(folder, binaryMB: "1", resourcesMB: "1")
            let report = try CodeSealVerifier().verify(path: app)
            #expect(report.items.count == 1)
            #expect(report.items.flatMap(\.problems).isEmpty, "\(report.items.flatMap(\.problems))")
            #expect(report.items.first?.status == .adhoc)
            #expect(report.items.first?.codeDirectories.map(\.hashType) == [.sha256, .sha1])
            let ipaReport = try CodeSealVerifier().verify(path: try Self.zip(folder, app: app))
            #expect(ipaReport.items.flatMap(\.problems).isEmpty, "\(ipaReport.items.flatMap(\.problems))")
        }
    }

    @Test func aBigSealedEntryOfAnIPAPassesThroughOneBoundedBuffer() throws {
        try withTemporaryFolder { folder in
            let app = try Self.generate(folder, binaryMB: "1", resourcesMB: "0.5", bigMB: "64")
            let ipa = try Self.zip(folder, app: app)
            let package = try AppPackage.open(ipa)
            let report = try CodeSealVerifier(threads: 2).verify(package)
            #expect(report.items.flatMap(\.problems).isEmpty, "\(report.items.flatMap(\.problems))")
            let reader = try #require((package.app.storage as? ArchiveStorage)?.reader)
            // Every sealed file and the executable went through chunked reads of at most 1 MB each:
            // the 64 MB entry was never in memory whole.
            #expect(reader.largestChunkBuffer == 1 << 20)
            #expect(reader.chunkedReads >= report.items[0].sealedFiles.count)
        }
    }
}

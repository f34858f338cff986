import CodeSign
import Foundation
import TestSupport
import Testing

/// Tools nobody here wrote agree with the verifier: Python's plistlib on every CodeResources (which
/// files are sealed, with which hashes) and `openssl dgst -sha256` on sealed files of an unpacked app.
@Suite(Fixtures.enabled) struct CodeSealOracleTests {
    /// For each CodeResources in the ipa: the bundle folder, then `path hash` per sealed file (files2, else files).
    static let plistlibScript = """
        import plistlib, sys, zipfile
        z = zipfile.ZipFile(sys.argv[1])
        for name in sorted(z.namelist()):
            if name.endswith('/_CodeSignature/CodeResources'):
                p = plistlib.loads(z.read(name))
                seals = p.get('files2') or p.get('files') or {}
                print('bundle', name[:-len('/_CodeSignature/CodeResources')])
                for path in sorted(seals):
                    seal = seals[path]
                    h = seal if isinstance(seal, bytes) else seal.get('hash2') or seal.get('hash') or b''
                    print(h.hex(), path)
        """

    @Test func plistlibSealsTheSameFilesWithTheSameHashes() throws {
        for url in Fixtures.files(in: "ipa") where url.pathExtension == "ipa" {
            let result = try ProcessResult.run("/usr/bin/env", ["python3", "-c", Self.plistlibScript, url.path])
            guard result.status == 0 else { throw SetupFailure("python3 failed: \(result.stderrText)") }
            var oracle: [String: [String]] = [:]
            var bundle = ""
            for line in result.stdoutText.split(separator: "\n") {
                if line.hasPrefix("bundle ") { bundle = String(line.dropFirst(7)); oracle[bundle] = []; continue }
                oracle[bundle]!.append(String(line))
            }
            let report = try CodeSealVerifier().verify(path: url.path)
            var model: [String: [String]] = [:]
            for item in report.items where item.kind != .dylib {
                model[item.path] = item.sealedFiles.keys.sorted().map { path in
                    let seal = item.sealedFiles[path]!
                    return ((seal.hash2 ?? seal.hash ?? []).map { String(format: "%02x", $0) }.joined()) + " " + path
                }
            }
            #expect(model == oracle, "\(url.lastPathComponent)")
            #expect(report.isValid)
        }
    }

    @Test func opensslHashesOfSealedFilesMatchTheSeal() throws {
        guard let openssl = ProcessResult.which("openssl") else { throw SetupFailure("openssl is not on PATH") }
        try withTemporaryFolder { folder in
            let app = try TamperedApp("ipa-server_Test_dev-xcode12.ipa", in: folder)
            let item = try #require(try CodeSealVerifier().verify(path: app.app).items.last)
            #expect(item.sealIsValid)
            var checked = 0
            for path in ["Assets.car", "embedded.mobileprovision", "Base.lproj/Main.storyboardc/Info.plist"] {
                let seal = try #require(item.sealedFiles[path], "\(path)")
                let result = try ProcessResult.run(openssl, ["dgst", "-sha256", "-r", app.path(path)])
                let hex = String(result.stdoutText.prefix(64))
                #expect(hex == (seal.hash2 ?? []).map { String(format: "%02x", $0) }.joined(), "\(path)")
                checked += 1
            }
            #expect(checked == 3)
        }
    }
}

import CodeSign
import Foundation
import TestSupport

/// A fixture ipa unpacked into a temporary folder (Python's zipfile, an unzip nobody here wrote), to be
/// tampered with and verified as a `.app` folder.
struct TamperedApp {
    /// The `.app` folder (`<temp>/Payload/Test.app`).
    let app: String

    /// Unpacks `ipa` (a name in the fixtures' ipa folder) into `folder`.
    init(_ ipa: String, in folder: TemporaryFolder) throws {
        let target = folder.path("unpacked")
        let result = try ProcessResult.run(
            "/usr/bin/env",
            [
                "python3", "-c", "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])", Fixtures.url("ipa", ipa).path,
                target
            ])
        guard result.status == 0 else { throw SetupFailure("python3 could not unpack \(ipa): \(result.stderrText)") }
        let apps = try FileManager.default.contentsOfDirectory(atPath: target + "/Payload").filter { $0.hasSuffix(".app") }
        guard apps.count == 1 else { throw SetupFailure("\(ipa) holds \(apps.count) apps") }
        app = target + "/Payload/" + apps[0]
    }

    var name: String { (app as NSString).lastPathComponent }

    func path(_ relative: String) -> String { app + "/" + relative }
    func data(_ relative: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path(relative))) }
    func write(_ relative: String, _ data: Data) throws { try data.write(to: URL(fileURLWithPath: path(relative))) }

    /// Flips the bits of the byte at `offset` of a file.
    func flipByte(_ relative: String, at offset: Int) throws {
        var bytes = try data(relative)
        bytes[offset] ^= 0xff
        try write(relative, bytes)
    }

    /// The problem lines `codesign verify` prints for the folder.
    func problems() throws -> [String] { try CodeSealVerifier().verify(path: app).problems.map(\.description) }

    /// The kind of each problem of the folder, in the order of ``problems()``.
    func kinds() throws -> [CodeSignProblem] { try CodeSealVerifier().verify(path: app).problems.map(\.kind) }
}

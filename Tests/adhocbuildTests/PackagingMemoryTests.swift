import Foundation
import TestSupport
import Testing

/// Packaging keeps its memory bounded whatever the app's size: it streams the files, spools
/// compressed chunks to disk, and the check after writing lets go of what it maps.
@Suite struct PackagingMemoryTests {
    /// Peak resident memory of `adhocbuild arguments`, measured by GNU time (a dependency of
    /// `make test`), since this test process's own figure would include every other test's.
    static func peakMegabytes(_ arguments: [String], in folder: TemporaryFolder) throws -> (status: Int32, megabytes: Double, error: String)
    {
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else {
            throw SetupFailure("\(time) is missing; `make deps` installs it (Debian package 'time')")
        }
        let report = folder.path("time.txt")
        let result = try ProcessResult.run(time, ["-f", "%M", "-o", report, AdhocBuildBinary.path] + arguments)
        let kilobytes =
            try String(contentsOfFile: report, encoding: .utf8)
            .split(whereSeparator: \.isNewline).last.flatMap { Double($0) } ?? .infinity
        return (result.status, kilobytes / 1024, result.stderrText)
    }

    /// A 400 MB executable that deflate cannot shrink (one random MiB repeated: the repeats lie
    /// far beyond deflate's 32 KiB window), so the ipa itself is larger than the 300 MB bar and
    /// nothing that grows with it can hide under the bar.
    @Test func packagingALargeAppStaysUnder300MB() throws {
        try withTemporaryFolder { folder in
            try folder.create(
                "Large.app/Info.plist", Data("<plist><dict><key>CFBundleExecutable</key><string>Large</string></dict></plist>".utf8))
            var generator = SystemRandomNumberGenerator()
            let block = Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let executable = folder.path("Large.app/Large")
            try #require(FileManager.default.createFile(atPath: executable, contents: nil))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: executable))
            for _ in 0..<400 { try handle.write(contentsOf: block) }
            try handle.close()
            chmod(executable, 0o755)

            for level in ["6", "0"] {
                let ipa = folder.path("Large-\(level).ipa")
                let run = try Self.peakMegabytes(["package", folder.path("Large.app"), "-o", ipa, "-q", "--level", level], in: folder)
                #expect(run.status == 0, "\(run.error)")
                let size = Double((try FileManager.default.attributesOfItem(atPath: ipa)[.size] as? Int) ?? 0) / 1_048_576
                #expect(size > 390, "level \(level): the ipa is only \(size) MB, so it does not test the bar")
                #expect(run.megabytes < 300, "level \(level): peak memory \(run.megabytes) MB for a \(size) MB ipa")
                try? FileManager.default.removeItem(atPath: ipa)
            }
        }
    }
}

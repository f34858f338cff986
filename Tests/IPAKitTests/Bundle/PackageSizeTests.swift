import Foundation
import IPAKit
import PlistKit
import TestSupport
import Testing

/// The ipa's size against Info-ZIP's `zip -6 -r -y -X` of the same tree, shape by shape: ours
/// may be smaller, never more than 1% larger.
@Suite struct PackageSizeTests {
    /// Trees of one kind of content each.
    enum Shape: String, CaseIterable, CustomTestStringConvertible {
        /// 300 strings, JSON and XML plist files of 100 bytes to 2 KB.
        case smallTextFiles
        /// A 2.5 MB log (three chunks) and a 300 KB script.
        case largeText
        /// A 3 MB machine-code-like binary and 40 nib-like files.
        case machineCode
        /// Random bytes: a 1.5 MB file (two chunks) and 30 files of 1 to 60 KB.
        case incompressible

        var testDescription: String { rawValue }
    }

    static func makeTree(_ shape: Shape, in folder: TemporaryFolder) throws -> String {
        let app = "Payload/Sized.app"
        try folder.create(
            "\(app)/Info.plist",
            try PropertyList.encode(
                ["CFBundleIdentifier": "com.example.sized", "CFBundleExecutable": "Sized", "CFBundleVersion": "1"], format: .xml))
        var random = AppLikeContent.Generator(state: 2024)
        switch shape {
        case .smallTextFiles:
            for index in 0..<300 {
                let style = index % 3
                let text = AppLikeContent.smallText(style, size: 100 + random.below(1900), &random)
                try folder.create("\(app)/Strings\(index % 5)/file\(index).\(["strings", "json", "plist"][style])", Data(text.utf8))
            }
        case .largeText:
            try folder.create("\(app)/Logs/events.log", Data(AppLikeContent.logText(size: 2_500_000, &random)))
            try folder.create("\(app)/Web/app.js", Data(AppLikeContent.logText(size: 300_000, &random)))
        case .machineCode:
            try folder.create("\(app)/Sized", Data(AppLikeContent.machineCode(size: 3 << 20, &random)))
            for index in 0..<40 {
                try folder.create(
                    "\(app)/Views/View\(index).nib", Data(AppLikeContent.machineCode(size: 2_000 + random.below(30_000), &random)))
            }
        case .incompressible:
            try folder.create("\(app)/Media/movie.bin", Data(random.bytes(1_500_000)))
            for index in 0..<30 {
                try folder.create("\(app)/Media/clip\(index).bin", Data(random.bytes(1_000 + random.below(60_000))))
            }
        }
        return folder.path(app)
    }

    static func size(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? -1
    }

    @Test(arguments: Shape.allCases, [1, 6, 9])
    func theIpaIsWithinOnePercentOfZipAtTheSameLevel(_ shape: Shape, level: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = try Self.makeTree(shape, in: folder)
        let ours = folder.path("ours.ipa")
        var options = IPAPackager.Options()
        options.level = level
        _ = try IPAPackager(options: options).package(app, to: ours)
        let unzip = try ProcessResult.run(try #require(ProcessResult.which("unzip")), ["-tq", ours])
        #expect(unzip.status == 0, "unzip -t: \(unzip.stdoutText)")
        let zip = try ProcessResult.run(
            try #require(ProcessResult.which("sh")),
            ["-c", "cd \"$1\" && zip -qry -X -\(level) zip.ipa Payload", "sh", folder.url.path])
        try #require(zip.status == 0, "zip failed: \(zip.stderrText)")
        let (ourSize, zipSize) = (try Self.size(ours), try Self.size(folder.path("zip.ipa")))
        let difference = String(format: "%+.2f", 100 * (Double(ourSize) / Double(zipSize) - 1))
        #expect(
            Double(ourSize) <= Double(zipSize) * 1.01,
            "\(shape) at level \(level): the ipa is \(ourSize) bytes, zip -\(level) made \(zipSize) (\(difference)%)")
    }
}

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

    /// A deterministic generator (64-bit LCG).
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func word() -> String {
            [
                "shout", "out", "friends", "reaction", "voice", "message", "timeline", "profile", "settings", "share",
                "account", "follow", "badge", "avatar", "upload", "camera"
            ][below(16)]
        }
        mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
    }

    /// Text of `size` bytes in one of three small-file styles.
    static func smallText(_ style: Int, size: Int, _ random: inout Generator) -> String {
        var text = style == 2 ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n" : ""
        var index = 0
        while text.utf8.count < size {
            switch style {
            case 0: text += "\"\(random.word())_\(index)\" = \"\(random.word()) \(random.word()) \(random.word())\";\n"
            case 1: text += "\"\(random.word())\(index)\": \(random.below(1_000_000)), "
            default: text += "\t<key>\(random.word())\(index)</key>\n\t<string>\(random.word())-\(random.below(1000))</string>\n"
            }
            index += 1
        }
        return text
    }

    /// Log-like lines: times, levels, words and numbers.
    static func logText(size: Int, _ random: inout Generator) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(size + 200)
        var second = 1_700_000_000
        while out.count < size {
            second += random.below(4)
            out += Array("\(second).\(random.below(1000)) \(["INFO", "DEBUG", "WARN"][random.below(3)]) [\(random.word())] ".utf8)
            for _ in 0..<(3 + random.below(10)) { out += Array("\(random.word()) ".utf8) }
            out += Array("id=\(random.below(100_000_000))\n".utf8)
        }
        return Array(out.prefix(size))
    }

    /// Machine-code-like bytes: 4-byte "instructions" from a skewed vocabulary, some random.
    static func machineCode(size: Int, _ random: inout Generator) -> [UInt8] {
        let vocabulary = (0..<4096).map { _ in random.bytes(4) }
        var out: [UInt8] = []
        out.reserveCapacity(size + 8)
        while out.count < size {
            if random.below(4) == 0 { out += random.bytes(8); continue }
            // Skewed towards the first words: the product of two uniform draws.
            out += vocabulary[random.below(64) * random.below(64)]
        }
        return Array(out.prefix(size))
    }

    static func makeTree(_ shape: Shape, in folder: TemporaryFolder) throws -> String {
        let app = "Payload/Sized.app"
        try folder.create(
            "\(app)/Info.plist",
            try PropertyList.encode(
                ["CFBundleIdentifier": "com.example.sized", "CFBundleExecutable": "Sized", "CFBundleVersion": "1"], format: .xml))
        var random = Generator(state: 2024)
        switch shape {
        case .smallTextFiles:
            for index in 0..<300 {
                let style = index % 3
                let text = smallText(style, size: 100 + random.below(1900), &random)
                try folder.create("\(app)/Strings\(index % 5)/file\(index).\(["strings", "json", "plist"][style])", Data(text.utf8))
            }
        case .largeText:
            try folder.create("\(app)/Logs/events.log", Data(logText(size: 2_500_000, &random)))
            try folder.create("\(app)/Web/app.js", Data(logText(size: 300_000, &random)))
        case .machineCode:
            try folder.create("\(app)/Sized", Data(machineCode(size: 3 << 20, &random)))
            for index in 0..<40 {
                try folder.create("\(app)/Views/View\(index).nib", Data(machineCode(size: 2_000 + random.below(30_000), &random)))
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

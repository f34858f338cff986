import AssetCatalog
import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import IPAKit

/// CgBI icons un-crushed and checked by Pillow, an independent decoder.
@Suite(Fixtures.enabled) struct PNGCodecTests {
    static let cgbi: [(String, Int)] = [
        ("app_info_ipad_AppIcon29x29~ipad.png", 29), ("app_info_ipad_AppIcon76x76@2x~ipad.png", 152),
        ("app_info_ipad_AppIcon83.5x83.5@2x~ipad.png", 167), ("cgbi-to-png_cgbi-image_180x180.png", 180),
        ("go-png-cgbi_AppIcon60x60@3x_180x180.png", 180), ("node-pngdefry_icon_60x60.png", 60)
    ]

    func pillow(_ script: String, _ arguments: [String]) throws -> String {
        let python = try #require(ProcessResult.which("python3"))
        let probe = try ProcessResult.run(python, ["-c", "import PIL"])
        if probe.status != 0 {
            Issue.record("Pillow is needed to check PNGs independently (make deps installs it)")
            return ""
        }
        let result = try ProcessResult.run(python, ["-c", "import sys\nfrom PIL import Image\n" + script] + arguments)
        #expect(result.status == 0, "\(result.stderrText)")
        return result.stdoutText
    }

    @Test func everyCgBIFixtureBecomesAStandardPNGThatPillowReadsPixelForPixel() throws {
        try withTemporaryFolder { folder in
            for (name, size) in Self.cgbi {
                let data = try Data(contentsOf: Fixtures.url("png-cgbi", name))
                #expect(RGBAImage.isCgBI(data))
                let image = try RGBAImage(pngData: data)
                #expect(image.width == size && image.height == size, "\(name)")
                let png = try folder.write(name, image.pngData())
                let raw = try folder.write(name + ".rgba", Data(image.pixels))
                let output = try pillow(
                    """
                    image = Image.open(sys.argv[1]); image.load()
                    print(image.format, image.mode, image.size, image.tobytes() == open(sys.argv[2], 'rb').read())
                    """, [png, raw])
                #expect(output == "PNG RGBA (\(size), \(size)) True\n", "\(name)")
            }
        }
    }

    @Test func theUncrushedImageMatchesItsPlainControl() throws {
        try withTemporaryFolder { folder in
            let image = try RGBAImage(pngData: try Data(contentsOf: Fixtures.url("png-cgbi", "cgbi-to-png_cgbi-image_180x180.png")))
            let ours = try folder.write("ours.png", image.pngData())
            // Opaque pixels must match exactly. The control was made by a converter that kept the
            // colours premultiplied, so our translucent pixels, premultiplied again, must match it too.
            let output = try pillow(
                """
                a = Image.open(sys.argv[1]).convert('RGBA').tobytes(); b = Image.open(sys.argv[2]).convert('RGBA').tobytes()
                assert len(a) == len(b)
                opaque = translucent = worst = 0
                for i in range(0, len(a), 4):
                    assert a[i + 3] == b[i + 3]
                    alpha = b[i + 3]
                    for k in range(3):
                        if alpha == 255:
                            worst = max(worst, abs(a[i + k] - b[i + k]))
                        elif alpha > 0:
                            worst = max(worst, abs(round(a[i + k] * alpha / 255) - b[i + k]))
                    opaque += alpha == 255
                    translucent += 0 < alpha < 255
                print(opaque > 1000, translucent > 1000, worst)
                """, [ours, Fixtures.url("png-plain", "cgbi-to-png_png-image_180x180_plain.png").path])
            #expect(output == "True True 0\n")
        }
    }

    @Test func aPlainPNGDecodesAsPillowDecodesItAndABadCRCIsCaught() throws {
        try withTemporaryFolder { folder in
            let control = Fixtures.url("png-plain", "cgbi-to-png_png-image_180x180_plain.png").path
            // The control's IDAT CRC is wrong (Pillow does not check it; we do).
            #expect(throws: Diagnostic.image("IDAT chunk has a bad CRC")) {
                try RGBAImage(pngData: try Data(contentsOf: URL(fileURLWithPath: control)))
            }
            let clean = folder.path("clean.png")
            _ = try pillow("Image.open(sys.argv[1]).save(sys.argv[2])", [control, clean])
            let image = try RGBAImage(pngData: try Data(contentsOf: URL(fileURLWithPath: clean)))
            let raw = try folder.write("plain.rgba", Data(image.pixels))
            #expect(
                try pillow("print(Image.open(sys.argv[1]).convert('RGBA').tobytes() == open(sys.argv[2], 'rb').read())", [clean, raw])
                    == "True\n")
            // An RGB (no alpha) and a palette PNG decode too.
            for mode in ["RGB", "P", "L", "LA"] {
                let path = folder.path("\(mode).png")
                _ = try pillow("Image.open(sys.argv[1]).convert(sys.argv[3]).save(sys.argv[2])", [control, path, mode])
                let decoded = try RGBAImage(pngData: try Data(contentsOf: URL(fileURLWithPath: path)))
                let rgba = try folder.write("\(mode).rgba", Data(decoded.pixels))
                #expect(
                    try pillow(
                        "print(Image.open(sys.argv[1]).convert('RGBA').tobytes() == open(sys.argv[2], 'rb').read())",
                        [path, rgba]) == "True\n", "\(mode)")
            }
        }
    }

    @Test func truncatedCorruptAndForeignFilesAreRefused() throws {
        let data = try Data(contentsOf: Fixtures.url("png-cgbi", "node-pngdefry_icon_60x60.png"))
        expectDiagnostic(IPAProblem.self) { try RGBAImage(pngData: data.prefix(100)) }
        var corrupt = data
        corrupt[40] ^= 0xFF
        expectDiagnostic(IPAProblem.self) { try RGBAImage(pngData: corrupt) }
        #expect(throws: Diagnostic.image("not a PNG (bad signature)")) { try RGBAImage(pngData: Data("GIF89a".utf8)) }
    }

    @Test func theLargestIconOfTheIPadAppIsPickedAndExtracted() throws {
        let package = try AppPackage.open(Fixtures.url("ipa", "app_info_ipad_appstore-cgbi-icons.ipa").path)
        let icons = AppIcons(bundle: package.app)
        #expect(icons.largest == AppIcons.Icon(path: "AppIcon83.5x83.5@2x~ipad.png", width: 167, height: 167, isCgBI: true))
        #expect(icons.declaredNames == ["AppIcon29x29", "AppIcon40x40", "AppIcon76x76", "AppIcon83.5x83.5"])
    }
}

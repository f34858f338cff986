import CodeSign
import Foundation
import TestSupport
import Testing

/// The fixture whose app ships Swift 2's `Frameworks/libswift*.dylib`, loose dylibs that carry their
/// Info.plist in a `__TEXT,__info_plist` section, and helpers to read and break that section.
enum EmbeddedInfoPlist {
    static let ipa = "isign_SimpleSaucyApp_libswift-dylibs_swiftsupport.ipa"
    /// The app's loose dylibs, by their path in the app.
    static let dylibs = [
        "Core", "CoreGraphics", "CoreImage", "Darwin", "Dispatch", "Foundation", "ObjectiveC", "Security", "UIKit"
    ].map { "Frameworks/libswift\($0).dylib" }

    /// Whether `code` is not its bundle's executable (a dylib in `Frameworks/`), so no bundle Info.plist applies.
    static func isLoose(_ code: FixtureCode) -> Bool { code.entry.dropFirst(code.bundle.count).contains("/") }

    /// The name messages give a hash type.
    static func name(_ type: HashType) -> String { type == .sha1 ? "SHA-1" : "SHA-256" }

    /// The first 8 hex digits and an ellipsis, as messages show a hash.
    static func short(_ hash: [UInt8]) -> String { String(hash.map { String(format: "%02x", $0) }.joined().prefix(8)) + "…" }

    /// Where the `__info_plist` section header of `slice` starts in the slice: the 32 bytes of its
    /// section and segment names, found in the load commands.
    static func sectionHeader(_ slice: MachOSlice) throws -> Int {
        let names =
            [UInt8]("__info_plist".utf8) + [UInt8](repeating: 0, count: 4) + [UInt8]("__TEXT".utf8)
            + [UInt8](repeating: 0, count: 10)
        let commands = try #require(slice.loadCommands.last.map { $0.offset + $0.size })
        let bytes = Array(slice.bytes.prefix(commands))
        let found = (0...(bytes.count - names.count)).filter { Array(bytes[$0..<$0 + names.count]) == names }
        guard found.count == 1 else { throw SetupFailure("\(found.count) __info_plist section headers in slice \(slice.cpu)") }
        return found[0]
    }

    /// `bytes` (a whole Mach-O file) with the little-endian `value` written at `offset` of `slice`.
    static func patch(_ bytes: Data, _ slice: MachOSlice, at offset: Int, _ value: UInt64, width: Int) -> Data {
        var patched = bytes
        let start = Int(slice.fileOffset) + offset
        for index in 0..<width { patched[start + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
        return patched
    }
}

import CodeSign
import Foundation
import IPAKit
import PlistKit
import TestSupport
import Testing

/// One Mach-O inside a fixture ipa, with the bundle around it.
struct FixtureCode: CustomStringConvertible {
    var ipa: String
    /// The entry of the binary (`Payload/Test.app/Test`).
    var entry: String
    /// The bundle folder the binary seals (`Payload/Test.app/`).
    var bundle: String
    var bytes: Data
    var archive: ZipArchiveReader

    var description: String { "\(ipa): \(entry)" }

    /// A file of the bundle, by its path relative to the bundle.
    func bundleFile(_ relative: String) -> Data? { try? archive.data(named: bundle + relative) }

    /// Whether the binary is its bundle's executable (the one its Info.plist names), not code of its
    /// own such as a loose `Frameworks/libswiftCore.dylib`, which seals no Info.plist file and no
    /// CodeResources.
    var isBundleExecutable: Bool {
        guard let data = bundleFile("Info.plist"), let info = try? PropertyList(data: data).value.dictionaryValue,
            let executable = info["CFBundleExecutable"]?.stringValue
        else { return false }
        return bundle + executable == entry
    }

    /// Every Mach-O file in every fixture ipa (main binaries, appex, frameworks, dylibs).
    static func all() throws -> [FixtureCode] {
        var result: [FixtureCode] = []
        for url in Fixtures.files(in: "ipa") where url.pathExtension == "ipa" {
            let archive = try ZipArchiveReader(path: url.path)
            for entry in archive.entries where !entry.isDirectory && entry.name.hasPrefix("Payload/") && entry.size >= 4 {
                let data = try archive.data(entry)
                guard MachOFile.looksLikeMachO(data.prefix(4)) else { continue }
                result.append(
                    FixtureCode(
                        ipa: url.lastPathComponent, entry: entry.name, bundle: bundleFolder(of: entry.name), bytes: data, archive: archive))
            }
        }
        return result
    }

    /// The innermost `.app`, `.appex` or `.framework` folder holding `entry`.
    static func bundleFolder(of entry: String) -> String {
        var parts = entry.split(separator: "/").dropLast()
        while let last = parts.last, ![".app", ".appex", ".framework"].contains(where: { last.hasSuffix($0) }) {
            parts.removeLast()
        }
        return parts.joined(separator: "/") + "/"
    }
}

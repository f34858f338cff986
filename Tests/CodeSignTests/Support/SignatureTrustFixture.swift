import CodeSign
import Foundation
import PlistKit

/// One signed slice of a fixture bundle with what the trust checks take: the profile and bundle id.
struct TrustCase: CustomStringConvertible {
    var code: FixtureCode
    var cpu: String
    var signature: EmbeddedSignature
    var profile: [UInt8]?
    var bundleIdentifier: String?

    var description: String { "\(code) \(cpu)" }
    var ipa: String { code.ipa }

    /// Every slice of every fixture binary.
    static func all() throws -> [TrustCase] {
        var out: [TrustCase] = []
        for code in try FixtureCode.all() {
            let file = try MachOFile(data: code.bytes)
            let info = try code.bundleFile("Info.plist").map { try PropertyList(data: $0).value }?.dictionaryValue
            // A loose dylib (Frameworks/libswiftCore.dylib) is code of its own: no profile, no bundle id.
            let isBundleExecutable = info?["CFBundleExecutable"]?.stringValue.map { code.bundle + $0 == code.entry } ?? false
            let profile = isBundleExecutable ? code.bundleFile("embedded.mobileprovision").map { [UInt8]($0) } : nil
            let identifier = isBundleExecutable ? info?["CFBundleIdentifier"]?.stringValue : nil
            for slice in file.slices {
                guard let signature = try slice.embeddedSignature() else { continue }
                out.append(TrustCase(code: code, cpu: "\(slice.cpu)", signature: signature, profile: profile, bundleIdentifier: identifier))
            }
        }
        return out
    }

    func evaluate(anchorApple: Bool = false, profile override: [UInt8]?? = nil, signature other: EmbeddedSignature? = nil)
        -> SignatureTrustVerifier.Report
    {
        SignatureTrustVerifier.verify(
            bundlePath: code.bundle, signature: other ?? signature, profileData: override ?? profile, bundleIdentifier: bundleIdentifier,
            anchorApple: anchorApple, now: Date())
    }
}

extension EmbeddedSignature {
    /// The same signature with the blob in `slot` replaced (or removed, for nil), re-read.
    func replacing(_ slot: UInt32, with bytes: [UInt8]?) throws -> EmbeddedSignature {
        var blob = superBlob
        if let index = blob.entries.firstIndex(where: { $0.type == slot }) {
            if let bytes { blob.entries[index].bytes = bytes } else { blob.entries.remove(at: index) }
        }
        return try EmbeddedSignature(bytes: blob.bytes())
    }
}

import CodeSign
import Foundation
import IPAKit
import SystemSupport

/// The copy of a build folder that `release` changes: an `.app`, or of an `.xcarchive` only what goes
/// into the ipa (its app and its `SwiftSupport`, which ``IPAPackager/checkContents(of:)`` has checked),
/// in the same layout. The rest of an archive (dSYMs, BCSymbolMaps) was copied for nothing, and a FIFO
/// there made the copy wait forever.
enum BuildCopy {
    /// Copies the build folder `input` to `target` (which must not exist); with `hashing`, returns the
    /// digests of the app's files, hashed as they are copied, for the signer.
    static func copy(_ input: String, to target: String, hashing: Bool) throws -> DigestCache? {
        guard input.hasSuffix(".xcarchive") else { return try copyFolder(input, to: target, hashing: hashing) }
        let (app, swiftSupport) = try IPAPackager.locateApp(input)
        let applications = target + "/Products/Applications"
        try FileIO.createFolder(applications)
        let digests = try copyFolder(app, to: applications + "/" + (app as NSString).lastPathComponent, hashing: hashing)
        if let swiftSupport { _ = try copyFolder(swiftSupport, to: target + "/SwiftSupport", hashing: false) }
        return digests
    }

    private static func copyFolder(_ source: String, to target: String, hashing: Bool) throws -> DigestCache? {
        if hashing { return try HashingCopy.copy(source, to: target) }
        do { try FileManager.default.copyItem(atPath: source, toPath: target) } catch {
            throw FoundationError.fileError(error, action: "cannot be copied")
        }
        return nil
    }
}

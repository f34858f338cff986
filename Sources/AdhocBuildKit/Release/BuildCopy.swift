import CodeSign
import Foundation
import IPAKit
import SystemSupport

/// The copy of a build folder that `release` changes: an `.app`, or of an `.xcarchive` only what goes
/// into the ipa (its app and its `SwiftSupport`, which ``IPAPackager/checkContents(of:)`` has checked),
/// in the same layout. The rest of an archive (dSYMs, BCSymbolMaps) was copied for nothing, and a FIFO
/// there made the copy wait forever.
///
/// Files are hard-linked into the copy where the file system allows (``HashingCopy``), so a release
/// writes only what it changes. Every step that changes a file of the copy replaces it (a new file
/// renamed over it: ``FileTransaction``, the signer's ``AtomicFileWriter``, ``ExecutableModes``),
/// so the build it was copied from is left as it was.
enum BuildCopy {
    /// Copies the build folder `input` to `target` (which must not exist); with `hashing`, returns the
    /// digests of the app's files, hashed as they are linked or copied, for the signer.
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
        let digests = try HashingCopy.copy(source, to: target, linking: true, hashing: hashing)
        return hashing ? digests : nil
    }
}

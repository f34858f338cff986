import CodeSign
import Foundation
import IPAKit
import SystemSupport

/// What a release of an app folder packages while the app is being signed: every file the copy
/// hashed (all but code, which the signer writes again) apart from the seals and profiles the
/// signer writes, compressed into the spool of the ipa to be written. Signing runs on one core
/// most of the time; this keeps the other busy with work packaging would do after it.
enum PackagingAhead {
    /// Starts compressing, on a thread of its own, the files of `app` that signing leaves as they
    /// are, with `options`, into a spool in `folder`.
    static func start(app: String, digests: DigestCache, spoolIn folder: String, options: IPAPackager.Options)
        -> BackgroundResult<CompressedAhead, any Error>
    {
        let paths = files(of: app, hashed: digests.hashedPaths)
        return BackgroundResult(thread: "adhocbuild.ahead") { try IPAPackager(options: options).compressAhead(paths, spoolIn: folder) }
    }

    /// The paths among `hashed` under `app` that no signer writes: not in a `_CodeSignature` folder,
    /// not an embedded profile.
    static func files(of app: String, hashed: [String]) -> [String] {
        let prefix = app + "/"
        let seals = Array("/_CodeSignature/".utf8)
        return hashed.filter { path in
            guard path.hasPrefix(prefix), !path.hasSuffix("/embedded.mobileprovision") else { return false }
            // As bytes: Foundation's `contains` on a String goes through CFString, and the standard
            // library's `firstRange(of:)` through unspecialised generic code (a millisecond per 100 paths).
            var path = path
            return path.withUTF8 { !holds($0, seals) }
        }
    }

    /// Whether `bytes` holds the bytes `part` somewhere.
    private static func holds(_ bytes: UnsafeBufferPointer<UInt8>, _ part: [UInt8]) -> Bool {
        guard bytes.count >= part.count, let first = part.first else { return part.isEmpty }
        for start in 0...(bytes.count - part.count) where bytes[start] == first {
            var index = 1
            while index < part.count && bytes[start + index] == part[index] { index += 1 }
            if index == part.count { return true }
        }
        return false
    }
}

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
        return hashed.filter { path in
            path.hasPrefix(prefix) && !path.hasSuffix("/embedded.mobileprovision") && !UTF8Search.contains(path, "/_CodeSignature/")
        }
    }
}

import CodeSign
import Foundation
import PlistKit
import SystemSupport

/// What `env apply`, `version bump` and `release` do before they change a file that a built app's
/// signature seals: refuse (the app would no longer install), or with `--allow-broken-signature`
/// go on and warn. Every file of a signed bundle is sealed, by the CodeDirectory (Info.plist) or by
/// `_CodeSignature/CodeResources` (everything else, and an added file breaks the seal as well).
public enum SealGuard {
    /// The option that lets a change break a signature.
    public static let allowFlag = "--allow-broken-signature"

    /// How the app bundle folder `app` is signed, read from its executable's signature alone (nothing
    /// is hashed; its Info.plist read with `limits`): `.unreadable` when the executable or its signature
    /// cannot be read.
    public static func status(ofApp app: String, limits: PlistLimits = .default) -> CodeSignatureStatus {
        switch AppExecutableSignature.of(app: app, limits: limits) {
        case .none: return .unsigned
        case .unreadable: return .unreadable
        case .signature(let signature):
            guard let directory = signature.codeDirectory else { return .unreadable }
            if signature.signature?.isEmpty ?? true || directory.flags & CodeDirectory.Flag.adhoc != 0 { return .adhoc }
            return .signed
        }
    }

    /// Checks a change to the app bundle folder `app` before it is written.
    ///
    /// - Parameters:
    ///   - action: what is being done, `applying Staging` or `setting the build number to 5`.
    ///   - changes: what it does to the bundle's files, `changes Info.plist and adds environment.plist`.
    ///   - allowBroken: `--allow-broken-signature`: go on, and return a warning.
    ///   - limits: the limits the app's Info.plist is read with.
    /// - Returns: a warning (code `.build(.signatureBroken)`, naming the app), or nil when the app is
    ///   unsigned or nothing changes.
    /// - Throws: when the app is signed and `allowBroken` is false, an error that names the app, what
    ///   breaks its seal and what to do.
    public static func check(
        app: String, action: String, changes: String, allowBroken: Bool, limits: PlistLimits = .default
    ) throws -> Diagnostic? {
        let name = (app as NSString).lastPathComponent
        switch status(ofApp: app, limits: limits) {
        case .signed:
            let what = "\(action) \(changes), which the signature of \(name) seals; iOS will refuse to install it"
            guard allowBroken else {
                var error = Diagnostic.build(what, file: app)
                error.hint = "re-sign the app after this change, or pass \(allowFlag) to go on anyway"
                throw error
            }
            return Diagnostic(
                .build(.signatureBroken), "\(what) until it is re-signed (going on: \(allowFlag))", file: app, severity: .warning)
        case .adhoc:
            return Diagnostic(
                .build(.signatureBroken), "\(action) \(changes), which its ad-hoc signature seals; re-sign it before installing", file: app,
                severity: .warning)
        case .unsigned, .unreadable:
            return nil
        }
    }

    /// `changes Info.plist and adds environment.plist`: the verb for each file, joined.
    static func phrase(_ files: [(verb: String, file: String)]) -> String {
        var parts: [String] = []
        for (index, item) in files.enumerated() {
            if index > 0 && item.verb == files[index - 1].verb {
                parts[parts.count - 1] += ", \(item.file)"
            } else {
                parts.append("\(item.verb) \(item.file)")
            }
        }
        return parts.joined(separator: " and ")
    }
}

import CodeSign
import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// `adhocbuild inspect`: what ``AppInspection`` says about an app, with a signing section per code
/// item (the app and everything nested in it) and the profile's own signature checked.
public enum AppReport {
    /// How many problems of one code item are shown before the rest are counted.
    public static let problemsShown = 3

    /// The summary of the .ipa, .app or .xcarchive at `path` (read with `limits`), as an ordered
    /// dictionary for text or JSON.
    public static func summary(path: String, now: Date = Date(), limits: ReaderLimits = .standard) throws -> PlistDictionary {
        let package = try AppPackage.open(path, limits: limits)
        let profileSignature =
            package.app.file("embedded.mobileprovision") == nil
            ? nil : ProfileCheck.describe(try? package.app.read("embedded.mobileprovision"), limits: limits.plist)
        var dict = AppInspection.summary(package, now: now, profileSignature: profileSignature)
        let check = try SignatureReport.verify(path: path, now: now, limits: limits)
        dict["signature"] = .string(check.state.rawValue)
        dict["signing"] = .array(
            check.result.report.items.reversed().map { .dictionary(signing($0, signer: check.result.signers[$0.path])) })
        return dict
    }

    /// One code item's signing section.
    static func signing(_ item: CodeItemReport, signer: String?) -> PlistDictionary {
        var dict = PlistDictionary()
        dict["path"] = .string(item.path)
        dict["status"] = .string(item.status.rawValue)
        if let identifier = item.identifier { dict["identifier"] = .string(identifier) }
        if let team = item.teamID { dict["team"] = .string(team) }
        if let signer { dict["signer"] = .string(signer) }
        if let cdhash = item.cdhash { dict["cdhash"] = .string(cdhash.hexString) }
        if !item.hashTypes.isEmpty { dict["hashTypes"] = .array(item.hashTypes.map { .string($0.description) }) }
        if let version = item.codeDirectoryVersion { dict["codeDirectoryVersion"] = .string("0x" + String(version, radix: 16)) }
        if let entitlements = item.entitlements?.dictionaryValue {
            dict["entitlements"] = .array(entitlements.keys.map { .string($0) })
        }
        switch item.status {
        case .unsigned: dict["seal"] = .string("none (unsigned)")
        default:
            dict["seal"] = .string(
                item.sealIsValid
                    ? "valid"
                    : "broken: " + SignatureReport.firstProblems(item.problems, limit: problemsShown))
            if !item.installProblems.isEmpty {
                dict["install"] = .string("refused: " + SignatureReport.firstProblems(item.installProblems, limit: problemsShown))
            }
        }
        return dict
    }
}

/// The result of a provisioning profile's own CMS check, in words (`profile show`, `inspect`).
public enum ProfileCheck {
    /// `verifies, signed by Apple iPhone OS Provisioning Profile Signing`, `does not verify: …`, or
    /// `cannot be read: …`.
    public static func describe(_ data: Data?, limits: PlistLimits = .default) -> String {
        guard let data else { return "cannot be read" }
        do {
            let profile = try ProfileSignature(bytes: [UInt8](data), limits: limits)
            if let failure = profile.verificationFailure { return "does not verify: \(failure)" }
            return "verifies" + (profile.signer.map { ", signed by \($0.displayName)" } ?? "")
        } catch {
            return "cannot be read: \((error as? Diagnostic)?.message ?? FoundationError.line(error))"
        }
    }

    /// `profile show`: the summary of the profile at `path`, with its CMS check.
    public static func summary(path: String, now: Date = Date(), limits: PlistLimits = .default) throws -> PlistDictionary {
        let profile = try ProvisioningProfile(contentsOf: path, limits: limits)
        return profile.summary(now: now, profileSignature: describe(try? Data(contentsOf: URL(fileURLWithPath: path)), limits: limits))
    }
}

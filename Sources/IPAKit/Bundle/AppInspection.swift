import Foundation
import PlistKit

/// What `adhocbuild inspect` reports about an ipa or app, as an ordered dictionary for text or JSON.
public enum AppInspection {
    /// `profileSignature` is the result of the embedded profile's CMS check, computed by the caller
    /// (see ``ProvisioningProfile/summary(now:profileSignature:)``).
    public static func summary(_ package: AppPackage, now: Date = Date(), profileSignature: String? = nil) -> PlistDictionary {
        var dict = bundleSummary(package.app)
        if package.isArchive && package.extras.count > 0 { dict["otherFolders"] = .array(package.extras.map { .string($0) }) }
        let icons = AppIcons(bundle: package.app)
        if !icons.icons.isEmpty {
            dict["icons"] = .array(icons.icons.map { .string("\($0.path) (\($0.width)x\($0.height)\($0.isCgBI ? ", CgBI" : ""))") })
        } else {
            let lookup = AppIconLookup(bundle: package.app, files: icons)
            if let icon = lookup.icon {
                dict["icons"] = .array([.string(icon.source)] + lookup.notices.map { .string("passed over: \($0)") })
            } else {
                dict["icons"] = .string("none extractable: \(lookup.missingReason)\(lookup.notices.map { "; \($0)" }.joined())")
            }
        }
        switch package.app.profile() {
        case .success(let profile)?: dict["profile"] = .dictionary(profile.summary(now: now, profileSignature: profileSignature))
        case .failure(let error)?: dict["profile"] = .string("unreadable: \(error.message)")
        case nil: dict["profile"] = .string("none")
        }
        if !package.app.nested.isEmpty {
            dict["extensions"] = .array(
                package.app.nested.map { nested in
                    var summary = bundleSummary(nested, brief: true)
                    if case .success(let profile)? = nested.profile() {
                        summary["profile"] = .string("\(profile.name) (\(profile.kind.rawValue))")
                    }
                    return .dictionary(summary)
                })
        }
        return dict
    }

    static func bundleSummary(_ bundle: AppBundle, brief: Bool = false) -> PlistDictionary {
        var dict = PlistDictionary()
        dict["name"] = .string(bundle.displayName ?? bundle.name)
        dict["bundle"] = .string(bundle.root)
        dict["bundleIdentifier"] = .string(bundle.bundleIdentifier ?? "-")
        dict["version"] = .string(bundle.shortVersion ?? "-")
        dict["build"] = .string(bundle.buildVersion ?? "-")
        if brief {
            if let point = bundle.info[keyPath: ["NSExtension", "NSExtensionPointIdentifier"]]?.stringValue {
                dict["extensionPoint"] = .string(point)
            }
            return dict
        }
        dict["minimumOS"] = .string(bundle.minimumOSVersion ?? "-")
        dict["devices"] = .string(bundle.deviceFamilyNames.isEmpty ? "-" : bundle.deviceFamilyNames.joined(separator: ", "))
        dict["platform"] = .string((bundle.platform ?? "unknown") + (bundle.isSimulatorBuild ? " (simulator build)" : ""))
        if let executable = bundle.executableName {
            let file = bundle.executable
            dict["executable"] = .string(
                file.map { "\(executable) (\($0.size) bytes\($0.isExecutable ? "" : ", not executable"))" }
                    ?? "\(executable) (missing)")
        }
        dict["size"] = .integer(PlistInteger(bundle.size))
        dict["infoPlistFormat"] = .string(bundle.infoFormat.rawValue)
        dict["frameworks"] = .array(bundle.frameworks.map { .string($0) })
        return dict
    }
}

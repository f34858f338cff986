import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// Writes what testers open: `index.html` (the install page), `manifest.plist`, the icons,
/// `version.json` (for in-app update checks) and `build.json` (for the index of builds).
public struct InstallPage {
    public struct Options: Sendable {
        public var baseURL: String
        public var allowHTTP = false
        /// `bundle-version` in the manifest: the short version (as Xcode's export writes it) or the build number.
        public var useBuildNumberAsBundleVersion = false
        public var environment: String?
        /// The manifest's subtitle (default: the environment).
        public var subtitle: String?
        /// The app's name on the page and in the manifest (default: its display name).
        public var title: String?
        public var notes: String?
        public var commit: String?
        public var branch: String?
        public var templatesFolder: String?
        /// The build time shown; the ipa's modification time when nil.
        public var buildDate: Date?
        public var now = Date()
        /// Copy the ipa into the output folder (the page links to it there).
        public var copyIPA = true

        public init(baseURL: String) { self.baseURL = baseURL }
    }

    public struct Result: Sendable {
        public var files: [String]
        public var pageURL: String
        public var manifestURL: String
        public var ipaURL: String
        public var installURL: String
        public var warnings: [String]
    }

    public static let generatorVersion = AdhocBuildVersion.current

    public var options: Options

    public init(options: Options) { self.options = options }

    /// Reads `ipa` and writes the page and its files into `folder`.
    public func write(ipa: String, to folder: String) throws -> Result {
        var warnings: [String] = []
        let base = try URLEncoding.baseURL(options.baseURL, allowHTTP: options.allowHTTP)
        if base.lowercased().hasPrefix("http:") {
            warnings.append("the base URL uses http: iOS will refuse to install from this page; serve it over https")
        }
        let package = try AppPackage.open(ipa)
        let app = package.app
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let ipaName = (ipa as NSString).lastPathComponent
        let ipaURL = URLEncoding.join(base, ipaName)
        let manifestURL = URLEncoding.join(base, "manifest.plist")
        let pageURL = base
        let installURL = URLEncoding.installLink(manifestURL: manifestURL)
        var files: [String] = []
        func write(_ data: Data, _ name: String) throws {
            let path = (folder as NSString).appendingPathComponent(name)
            try FileIO.writeAtomically(data, to: path)
            files.append(path)
        }

        // Icons: the largest, un-crushed and resized for the manifest.
        var iconFile: String? = nil
        var haveIcons = false
        let icons = AppIcons(bundle: app)
        if let largest = icons.largest, let image = try? PNGImage(data: try app.read(largest.path)) {
            try write(ImageResizer.resize(image, to: 57).pngData(), "icon-57.png")
            try write(ImageResizer.resize(image, to: 512).pngData(), "icon-512.png")
            iconFile = "icon-512.png"
            haveIcons = true
        } else {
            warnings.append("no icon for the page and manifest: \(icons.missingReason)")
        }

        let identifier = app.bundleIdentifier ?? ""
        let version = app.shortVersion ?? "?"
        let build = app.buildVersion ?? "?"
        let title = options.title ?? app.displayName ?? (app.name as NSString).deletingPathExtension
        let manifest = OTAManifest(ipaURL: ipaURL, displayImageURL: haveIcons ? URLEncoding.join(base, "icon-57.png") : nil,
                                   fullSizeImageURL: haveIcons ? URLEncoding.join(base, "icon-512.png") : nil,
                                   bundleIdentifier: identifier,
                                   bundleVersion: options.useBuildNumberAsBundleVersion ? build : version,
                                   title: title, subtitle: options.subtitle ?? options.environment)
        try write(try manifest.data(), "manifest.plist")

        let attributes = try? FileManager.default.attributesOfItem(atPath: ipa)
        let ipaSize = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        let buildDate = options.buildDate ?? (attributes?[.modificationDate] as? Date) ?? options.now
        var profileContext: TemplateValue? = nil
        var canInstall = true
        var cannotInstallReason = ""
        var expiringSoon = false
        var isEnterprise = false
        var listsDevices = false
        var profileSummary = PlistDictionary()
        if case .success(let profile)? = app.profile() {
            let expires = profile.expirationDate
            let days = expires.map { Int(($0.timeIntervalSince(options.now) / 86_400).rounded(.down)) } ?? 0
            if let expires, expires <= options.now {
                canInstall = false
                cannotInstallReason = "This build cannot be installed: its provisioning profile expired on \(Self.format(expires)). Ask the team for a new build."
            } else if let expires, expires.timeIntervalSince(options.now) < 14 * 86_400 {
                expiringSoon = true
            }
            if !profile.kind.installsOverTheAir {
                canInstall = false
                cannotInstallReason = "This build is signed for the App Store and cannot be installed from this page."
            }
            isEnterprise = profile.kind == .enterprise
            listsDevices = !profile.provisionsAllDevices
            let deviceText = profile.provisionsAllDevices ? "any device (enterprise)"
                : "\(profile.devices.count) registered device\(profile.devices.count == 1 ? "" : "s")"
            let typeLabel: String
            switch profile.kind {
            case .development: typeLabel = "Development"
            case .adHoc: typeLabel = "Ad hoc"
            case .enterprise: typeLabel = "Enterprise (in-house)"
            case .appStore: typeLabel = "App Store"
            }
            profileContext = .record([
                "type": .text(profile.kind.rawValue), "typeLabel": .text(typeLabel), "team": .text(profile.teamName),
                "expires": .text(expires.map(Self.format) ?? "unknown"), "expiresISO": .text(expires.map { PlistDate($0).iso8601 } ?? ""),
                "daysLeftText": .text(days < 0 ? "expired" : days == 1 ? "1 day left" : "\(days) days left"),
                "deviceCountText": .text(deviceText),
            ])
            profileSummary["type"] = .string(profile.kind.rawValue)
            if let expires { profileSummary["expires"] = .date(PlistDate(expires)) }
        }
        if app.isSimulatorBuild {
            canInstall = false
            cannotInstallReason = "This is a simulator build; it cannot be installed on an iPhone or iPad."
        }
        let families = app.deviceFamilyNames.filter { $0 == "iPhone" || $0 == "iPad" }
        let notesHTML = options.notes.map(ReleaseNotes.html) ?? ""
        let context: TemplateValue = .record([
            "appName": .text(title), "initial": .text(String(title.prefix(1)).uppercased()), "version": .text(version),
            "build": .text(build), "bundleIdentifier": .text(identifier), "environment": .text(options.environment ?? ""),
            "buildDate": .text(Self.format(buildDate)), "buildDateISO": .text(PlistDate(buildDate).iso8601),
            "size": .text(Self.formatSize(ipaSize)), "minimumOS": .text(app.minimumOSVersion ?? ""),
            "devices": .text(families.isEmpty ? "–" : families.joined(separator: " and ")),
            "commit": .text(options.commit ?? ""), "branch": .text(options.branch ?? ""),
            "hasNotes": .flag(!notesHTML.isEmpty), "notesHTML": .text(notesHTML),
            "installURL": .text(installURL), "manifestURL": .text(manifestURL), "ipaURL": .text(ipaURL), "pageURL": .text(pageURL),
            "qrSVG": .text(try QRCode.svg(pageURL, label: "QR code for \(pageURL)")),
            "iconFile": .text(iconFile ?? ""), "canInstall": .flag(canInstall), "cannotInstallReason": .text(cannotInstallReason),
            "expiringSoon": .flag(expiringSoon), "isEnterprise": .flag(isEnterprise), "listsDevices": .flag(listsDevices),
            "profile": profileContext ?? .flag(false), "generatorVersion": .text(Self.generatorVersion),
        ])
        let html = try TemplateSet(folder: options.templatesFolder).render("page", context)
        try write(Data(html.utf8), "index.html")

        var versionFeed = PlistDictionary()
        versionFeed["bundleIdentifier"] = .string(identifier)
        versionFeed["version"] = .string(version)
        versionFeed["build"] = .string(build)
        versionFeed["environment"] = .string(options.environment ?? "")
        versionFeed["pageURL"] = .string(pageURL)
        versionFeed["manifestURL"] = .string(manifestURL)
        versionFeed["ipaURL"] = .string(ipaURL)
        versionFeed["installURL"] = .string(installURL)
        versionFeed["notes"] = .string(options.notes ?? "")
        versionFeed["date"] = .string(PlistDate(buildDate).iso8601)
        try write(try PropertyList.encode(.dictionary(versionFeed), format: .json), "version.json")

        var buildInfo = versionFeed
        buildInfo.removeValue(forKey: "notes")
        buildInfo["appName"] = .string(title)
        buildInfo["page"] = "index.html"
        if haveIcons { buildInfo["icon"] = "icon-57.png" }
        buildInfo["size"] = .integer(PlistInteger(ipaSize))
        if let branch = options.branch { buildInfo["branch"] = .string(branch) }
        if let commit = options.commit { buildInfo["commit"] = .string(commit) }
        if !profileSummary.isEmpty { buildInfo["profile"] = .dictionary(profileSummary) }
        try write(try PropertyList.encode(.dictionary(buildInfo), format: .json), "build.json")

        if options.copyIPA {
            let target = (folder as NSString).appendingPathComponent(ipaName)
            if (try? FileManager.default.destinationOfSymbolicLink(atPath: target)) == nil,
                URL(fileURLWithPath: target).standardizedFileURL != URL(fileURLWithPath: ipa).standardizedFileURL {
                // Copied under a temporary name and renamed, never read whole into memory.
                let temporary = FileIO.temporaryPath(for: target)
                do {
                    try FileManager.default.copyItem(atPath: ipa, toPath: temporary)
                    guard rename(temporary, target) == 0 else { throw SystemError("cannot be written", file: target) }
                } catch {
                    try? FileManager.default.removeItem(atPath: temporary)
                    throw error as? any DiagnosticError ?? ManifestError("cannot be copied: \(error.localizedDescription)", file: target)
                }
                files.append(target)
            }
        }
        return Result(files: files, pageURL: pageURL, manifestURL: manifestURL, ipaURL: ipaURL, installURL: installURL,
                      warnings: warnings)
    }

    static func format(_ date: Date) -> String {
        let text = PlistDate(date).iso8601
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5)) + " UTC"
    }

    static func formatSize(_ bytes: Int64) -> String {
        if bytes < 1_000_000 { return String(format: "%.0f KB", Double(bytes) / 1000) }
        return String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}

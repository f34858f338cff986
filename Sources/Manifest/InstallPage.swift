import AssetCatalog
import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// Writes what testers open: `index.html` (the install page) with its stylesheet and script,
/// `manifest.plist`, the icons, `version.json` (for in-app update checks) and `build.json` (for the
/// index of builds).
///
/// The page holds no inline style or script, so it reads the same under an artifact server's
/// `Content-Security-Policy` (Jenkins serves artifacts with `sandbox; default-src 'none';
/// img-src 'self'; style-src 'self'`): the stylesheet beside it loads, the script does not run,
/// and the page then shows one install message for every device. The script only refines it.
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
        /// A PNG to use as the app's icon on the page and in the manifest, instead of the app's own
        /// (its largest icon PNG, else the icon in its Assets.car).
        public var icon: String?
        /// When the build was made (its archive's date, or its original signing time), shown as "Built"
        /// beside "Published"; nil when unknown, and then only the publishing time is shown.
        public var buildDate: Date?
        /// What says when the build was made, as the page shows it (`its signing time`).
        public var buildDateSource: String?
        /// The time now: when the page is published, and what the profile's expiry is judged at.
        public var now = Date()
        /// What the build's code signature says (`valid`, `broken`, `unsigned`, `ad-hoc`), for
        /// `build.json` and `version.json`; nil leaves it out.
        public var signature: String?
        /// The signer's name, team id and the app's cdhash, for `build.json`, `version.json` and the index.
        public var signer: String?
        public var team: String?
        public var cdhash: String?
        /// A notice for testers at the top of the page (a broken signature: the build will not install).
        public var signatureNotice: String?
        /// The enrollment page testers whose device is not listed can register it on (`release
        /// --enroll-url`): the page links to it. Nil leaves the page as it was.
        public var enrollURL: String?
        /// How many of the listed testers' devices the build installs on, for `build.json` and the index.
        public var deviceReach: BuildInfo.DeviceReach?
        /// Copy the ipa into the output folder (the page links to it there).
        public var copyIPA = true
        /// The limits the ipa and its plists are read with.
        public var limits: ReaderLimits = .standard
        /// Read every entry of the ipa against its CRC first, so a damaged ipa is not published
        /// (`release` turns it off: its verify step has read them).
        public var checkEntries = true
        /// What to do when the app's provisioning profile has expired at `now`, so that iOS will not
        /// install it and the page says so: refuse (the default), warn (`--allow-expired`), or accept
        /// without a word (`release`, whose Verify step has refused or warned already).
        public var expiredProfile = ExpiredProfile.refuse

        public init(baseURL: String) { self.baseURL = baseURL }
    }

    /// What ``Options/expiredProfile`` does with an expired profile.
    public enum ExpiredProfile: Sendable {
        case refuse, warn, accept
    }

    public struct Result: Sendable {
        public var files: [String]
        public var pageURL: String
        public var manifestURL: String
        public var ipaURL: String
        public var installURL: String
        /// What was told but did not stop the page, each a ``Diagnostic`` of severity `.warning`.
        public var warnings: [Diagnostic]
    }

    public static let generatorVersion = AdhocBuildVersion.current
    /// The page's stylesheet, written beside it (the `style` template).
    public static let stylesheetName = "style.css"
    /// The page's script, written beside it (the `device-script` template): picks the note for the
    /// tester's device and counts down to the profile's expiry.
    public static let scriptName = "install.js"

    public var options: Options

    public init(options: Options) { self.options = options }

    /// Reads `ipa` and writes the page and its files into `folder`.
    public func write(ipa: String, to folder: String) throws -> Result {
        let (base, baseWarning) = try checkedBaseURL()
        let package = try AppPackage.open(ipa, limits: options.limits)
        let app = package.app
        if options.checkEntries && !package.isArchive {
            // The manifest would point at a folder, which no device can download.
            throw Diagnostic.notAnIPA(ipa)
        }
        if options.checkEntries, let first = package.damagedEntries().first {
            throw Diagnostic.manifest("\(first.name) \(first.problem); an ipa with a damaged entry does not install", file: ipa)
        }
        var output = PageOutput(folder: folder, warnings: baseWarning.map { [Diagnostic.manifest(.baseURL, $0).asWarning] } ?? [])
        let ipaName = (ipa as NSString).lastPathComponent
        let links = ReleaseLinks.beside(base: base, ipaName: ipaName)
        let haveIcons = try writeIcons(of: app, into: &output)
        let manifestFacts = try inFile(ipa, only: ManifestProblem.self) {
            let manifest = try OTAManifest(
                app: app, base: base, ipaURL: links.ipa, withIcons: haveIcons,
                bundleVersion: options.useBuildNumberAsBundleVersion ? .build : .short,
                title: options.title, subtitle: options.subtitle ?? options.environment)
            _ = try manifest.data()  // a value the manifest cannot carry fails here, naming the ipa
            return PageContent.ManifestFacts(
                bundleIdentifier: manifest.bundleIdentifier, bundleVersion: manifest.bundleVersion, title: manifest.title,
                subtitle: manifest.subtitle)
        }
        let facts = try BuildFacts(app: app, ipa: ipa, title: manifestFacts.title, options: options)
        if let warning = try expiryCheck(facts.profile, ipa: ipa) { output.warnings.append(warning) }
        let templates = try TemplateSet(folder: options.templatesFolder)
        let content = PageContent(
            page: pageContext(app: app, facts: facts), manifest: manifestFacts, ipaName: ipaName, hasIcons: haveIcons)
        let rendered = try inFile(ipa, only: ManifestProblem.self) { try Self.render(content, links: links, templates: templates) }
        output.write(rendered.manifest, "manifest.plist")
        output.write(Data(rendered.page.utf8), "index.html")
        output.write(Data(try templates.render("style", .record([:])).utf8), Self.stylesheetName)
        output.write(Data(try templates.render("device-script", .record([:])).utf8), Self.scriptName)
        output.write(try PropertyList.encode(.dictionary(versionFeed(facts, links)), format: .json), "version.json")
        output.write(try buildInfo(facts, links, haveIcons: haveIcons).jsonData(), "build.json")
        output.write(try content.jsonData(), PageContent.fileName)
        try output.commit { options.copyIPA ? try copy(ipa, into: folder) : nil }
        return Result(
            files: output.files, pageURL: links.page, manifestURL: links.manifest, ipaURL: links.ipa,
            installURL: links.install, warnings: output.warnings)
    }

    /// An expired profile, by ``Options/expiredProfile``: an error naming the ipa, a warning, or nothing.
    func expiryCheck(_ profile: ProvisioningProfile?, ipa: String) throws -> Diagnostic? {
        guard let profile, let expires = profile.expirationDate, expires <= options.now, options.expiredProfile != .accept else {
            return nil
        }
        let problem =
            "its provisioning profile \"\(profile.name)\" expired on \(Self.format(expires)), so iOS will not install it "
            + "and the page says it cannot be installed"
        guard options.expiredProfile == .warn else {
            throw Diagnostic.manifest(
                "\(problem); publish a build with a current profile, or pass --allow-expired to write the page anyway", file: ipa)
        }
        return Diagnostic.manifest("\(problem) (going on: --allow-expired)", file: ipa).asWarning
    }

    /// The base URL as checked by `URLEncoding`, and a warning when it is plain http.
    func checkedBaseURL() throws -> (String, warning: String?) {
        try URLEncoding.baseURLWithWarning(options.baseURL, allowHTTP: options.allowHTTP)
    }

    /// The app's icon (the largest PNG, un-crushed, else the icon in Assets.car) resized to the
    /// sizes the manifest promises; false (and a warning) when the app has none that can be read.
    func writeIcons(of app: AppBundle, into output: inout PageOutput) throws -> Bool {
        let image: RGBAImage
        if let icon = options.icon {
            do { image = try RGBAImage(pngData: try FileIO.read(icon, limit: InputLimits.image)) } catch let error as Diagnostic
                where error.code == .ipa(.image)
            {
                throw Diagnostic.manifest("is not a readable PNG: \(error.description)", file: icon)
            }
        } else {
            let lookup = AppIconLookup(bundle: app)
            output.warnings += lookup.notices.map { Diagnostic(.manifest(.invalid), $0, places: [.text("icon")], severity: .warning) }
            guard let found = lookup.icon else {
                output.warnings.append(
                    Diagnostic.manifest("no icon for the page and manifest: \(lookup.missingReason); or give one with --icon PNG").asWarning
                )
                return false
            }
            image = found.image
        }
        output.write(ImageResizer.resize(image, to: 57).pngData(), OTAManifest.displayImageName)
        output.write(ImageResizer.resize(image, to: 512).pngData(), OTAManifest.fullSizeImageName)
        return true
    }

    /// The page template's values: everything known about the build, except the links.
    func pageContext(app: AppBundle, facts: BuildFacts) -> TemplateValue {
        let families = app.deviceFamilyNames.filter { $0 == "iPhone" || $0 == "iPad" }
        let notesHTML = options.notes.map(ReleaseNotes.html) ?? ""
        let installability = Installability(app: app, profile: facts.profile, now: options.now)
        var values: [String: TemplateValue] = [
            "appName": .text(facts.title), "initial": .text(String(facts.title.prefix(1)).uppercased()),
            "version": .text(facts.version), "build": .text(facts.build), "bundleIdentifier": .text(facts.identifier),
            "environment": .text(options.environment ?? ""),
            "buildDate": .text(facts.buildDate.map(Self.format) ?? ""),
            "buildDateISO": .text(facts.buildDate.map { PlistDate($0).iso8601 } ?? ""),
            "buildDateSource": .text(options.buildDateSource ?? ""),
            "published": .text(Self.format(options.now)), "publishedISO": .text(PlistDate(options.now).iso8601),
            "size": .text(Self.formatSize(facts.ipaSize)), "minimumOS": .text(app.minimumOSVersion ?? ""),
            "devices": .text(families.isEmpty ? "–" : families.joined(separator: " and ")),
            "commit": .text(options.commit ?? ""), "branch": .text(options.branch ?? ""),
            "hasNotes": .flag(!notesHTML.isEmpty), "notesHTML": .text(notesHTML),
            "canInstall": .flag(installability.canInstall), "cannotInstallReason": .text(installability.reason),
            "expiringSoon": .flag(installability.expiringSoon), "isEnterprise": .flag(facts.profile?.kind == .enterprise),
            "listsDevices": .flag(facts.profile.map { !$0.provisionsAllDevices } ?? false),
            "profile": facts.profile.map { profileContext($0) } ?? .flag(false),
            "signatureNotice": .text(options.signatureNotice ?? ""),
            "generatorVersion": .text(Self.generatorVersion)
        ]
        // Only when given, so a page (and its page.json) without one is as it was.
        if let enrollURL = options.enrollURL { values["enrollURL"] = .text(enrollURL) }
        return .record(values)
    }

    /// The page and the manifest of `content`, with `links`: the page's links filled into its
    /// values (`&` in them HTML-escaped by the template), the manifest written by PlistKit (so XML-escaped).
    public static func render(_ content: PageContent, links: ReleaseLinks, templates: TemplateSet) throws -> (page: String, manifest: Data)
    {
        guard case .record(var values) = content.page else { throw Diagnostic.manifest(.buildInfo, "page.json's 'page' is not an object") }
        values["installURL"] = .text(links.install)
        values["manifestURL"] = .text(links.manifest)
        values["ipaURL"] = .text(links.ipa)
        values["pageURL"] = .text(links.page)
        // A link too long for any QR code (a presigned one with a long session token) leaves the code out.
        values["qrSVG"] = .text((try? QRCode.svg(links.page, label: "QR code for \(links.page)")) ?? "")
        values["iconFile"] = .text(content.hasIcons ? links.icon : "")
        values["faviconURL"] = .text(links.favicon)
        values["styleURL"] = .text(links.style)
        values["scriptURL"] = .text(links.script)
        let facts = content.manifest
        let manifest = OTAManifest(
            ipaURL: links.ipa, displayImageURL: content.hasIcons ? links.displayImage : nil,
            fullSizeImageURL: content.hasIcons ? links.fullSizeImage : nil, bundleIdentifier: facts.bundleIdentifier,
            bundleVersion: facts.bundleVersion, title: facts.title, subtitle: facts.subtitle)
        return (try templates.render("page", .record(values)), try manifest.data())
    }

    /// The profile box on the page: type, team, expiry and devices.
    func profileContext(_ profile: ProvisioningProfile) -> TemplateValue {
        let expires = profile.expirationDate
        let days = profile.daysUntilExpiry(from: options.now) ?? 0
        let deviceText =
            profile.provisionsAllDevices
            ? "any device (enterprise)"
            : "\(profile.devices.count) registered device\(profile.devices.count == 1 ? "" : "s")"
        return .record([
            "type": .text(profile.kind.rawValue), "typeLabel": .text(Self.label(profile.kind)), "team": .text(profile.teamName),
            "expires": .text(expires.map(Self.format) ?? "unknown"), "expiresISO": .text(expires.map { PlistDate($0).iso8601 } ?? ""),
            "daysLeftText": .text(days < 0 ? "expired" : days == 1 ? "1 day left" : "\(days) days left"),
            "deviceCountText": .text(deviceText)
        ])
    }

    static func label(_ kind: ProvisioningProfile.Kind) -> String {
        switch kind {
        case .development: return "Development"
        case .adHoc: return "Ad hoc"
        case .enterprise: return "Enterprise (in-house)"
        case .appStore: return "App Store"
        }
    }

    /// `version.json`, for in-app update checks.
    func versionFeed(_ facts: BuildFacts, _ links: ReleaseLinks) -> PlistDictionary {
        var feed = PlistDictionary()
        feed["bundleIdentifier"] = .string(facts.identifier)
        feed["version"] = .string(facts.version)
        feed["build"] = .string(facts.build)
        feed["environment"] = .string(options.environment ?? "")
        links.apply(to: &feed)
        feed["notes"] = .string(options.notes ?? "")
        feed["date"] = .string(PlistDate(options.now).iso8601)
        feed["published"] = .string(PlistDate(options.now).iso8601)
        if let built = facts.buildDate { feed["built"] = .string(PlistDate(built).iso8601) }
        if let signature = options.signature { feed["signature"] = .string(signature) }
        for (key, value) in [("signer", options.signer), ("team", options.team), ("cdhash", options.cdhash)] {
            if let value { feed[key] = .string(value) }
        }
        return feed
    }

    /// `build.json`, for the index of builds.
    func buildInfo(_ facts: BuildFacts, _ links: ReleaseLinks, haveIcons: Bool) -> BuildInfo {
        var info = BuildInfo()
        info.appName = facts.title
        info.bundleIdentifier = facts.identifier
        info.version = facts.version
        info.build = facts.build
        info.environment = options.environment ?? ""
        info.date = PlistDate(options.now).iso8601
        info.published = info.date
        info.built = facts.buildDate.map { PlistDate($0).iso8601 }
        info.page = "index.html"
        info.icon = haveIcons ? OTAManifest.displayImageName : nil
        links.apply(to: &info)
        info.size = facts.ipaSize
        info.branch = options.branch
        info.commit = options.commit
        info.profile = facts.profile.map { profile in
            BuildInfo.Profile(type: profile.kind.rawValue, expires: profile.expirationDate.map { PlistDate($0).iso8601 })
        }
        info.signature = options.signature
        info.signer = options.signer
        info.team = options.team
        info.cdhash = options.cdhash
        info.devices = options.deviceReach
        return info
    }

    /// Copies the ipa into `folder` under a temporary name and renames it, never reading it whole into
    /// memory; nil when it is already there (the same file, or a link to it).
    func copy(_ ipa: String, into folder: String) throws -> String? {
        let target = (folder as NSString).appendingPathComponent((ipa as NSString).lastPathComponent)
        guard (try? FileManager.default.destinationOfSymbolicLink(atPath: target)) == nil,
            URL(fileURLWithPath: target).standardizedFileURL != URL(fileURLWithPath: ipa).standardizedFileURL
        else { return nil }
        let temporary = FileIO.temporaryPath(for: target)
        do {
            try FileManager.default.copyItem(atPath: ipa, toPath: temporary)
            guard rename(temporary, target) == 0 else { throw Diagnostic.system("cannot be written", file: target) }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            // A full disk stays recognisable as one (Foundation's text for it says only "not enough space").
            if DiskSpace.isFull(error) { throw Diagnostic.system("cannot be written", file: target, code: ENOSPC) }
            throw error as? Diagnostic ?? Diagnostic.manifest("cannot be copied: \(FoundationError.reason(error))", file: target)
        }
        return target
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

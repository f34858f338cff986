import CodeSign
import Foundation
import IPAKit
import Manifest
import PlistKit
import SystemSupport

/// `adhocbuild release`: environment, build number, package, verify, icons, manifest, page,
/// feeds and index, in order, into `DIST/<env>/<version>-<build>/`.
///
/// What publishing writes is checked before DIST is changed. The release is assembled in a work folder
/// inside DIST (hidden, its owner's alone, on DIST's file system so the move is one step, removed when
/// the run fails or is interrupted: ``Interruption``) and moved into place only when every step has
/// succeeded, so a failure leaves no half-written release; `DIST/<env>/latest` then points at it and `DIST/index.html` is rewritten, all
/// or nothing (``ReleasePublication``), under a lock so concurrent releases into one DIST do not
/// trample each other. Inputs are never modified: an `.app` is copied first.
public struct ReleasePipeline {
    public enum BuildNumber: Sendable {
        case unchanged
        case exactly(String)
        case fromCI
    }

    public struct Options: Sendable {
        public var environment: String
        public var input: String
        /// A URL, or a template with `{env}`, `{version}`, `{build}` and `{NAME}` for the environment
        /// variables `variablePolicy` allows. Without placeholders it is where DIST is served and the
        /// release's path is appended.
        public var baseURL: String
        /// The CI variable `baseURL` was made from (`Jenkins' BUILD_URL`), which its errors name; nil
        /// when it was given.
        public var baseURLSource: String?
        public var out: String
        public var environmentsFolder = "environments"
        public var notes: String?
        /// A PNG for the page's and manifest's icon, instead of the bundle's.
        public var icon: String?
        public var buildNumber: BuildNumber = .unchanged
        public var profile: String?
        public var overrides: [(keyPath: PlistKeyPath, value: String)] = []
        public var settings: [String: String] = [:]
        public var processEnvironment: [String: String] = ProcessInfo.processInfo.environment
        /// Which variables of `processEnvironment` the environment's `$(NAME)` and the base URL's `{NAME}`
        /// may read (``ProcessVariablePolicy``).
        public var variablePolicy = ProcessVariablePolicy()
        public var allowHTTP = false
        /// Lets the build number go below the one the app has (`--allow-decrease`).
        public var allowDecrease = false
        /// Replaces a release of the same environment, version and build that is already published
        /// (`--replace`); without it, publishing one again is refused and DIST is left as it was.
        public var replace = false
        /// Publishes a signed build whose signature the release breaks (or that came broken), with a
        /// notice on the page and a marker in the index (`--allow-broken-signature`); without it, such a
        /// release fails before anything is published.
        public var allowBrokenSignature = false
        /// Publishes a build whose provisioning profile (or signing certificate) has expired, with warnings
        /// (`--allow-expired`); without it, an expired profile fails the release before anything is copied,
        /// an expired certificate at the signature check.
        public var allowExpired = false
        public var indexTitle = "Builds"
        /// The limits every plist and archive of the release is read with.
        public var limits: ReaderLimits = .standard
        /// How to re-sign the app once the environment and build number are applied, resolved and
        /// checked by ``ReleaseRequest/plan(processEnvironment:)``; the signer consumes it.
        public var signing: SigningRequest?
        /// The store the release is uploaded to once it is in DIST (`--publish`); its links then replace
        /// DIST's in the result, the CI outputs and the QR code.
        public var upload: ReleaseUpload?
        /// The testers' device list every bundle's profile is checked against (`--devices`); nil: none.
        public var devices: String?
        /// A listed device a profile lacks fails the release, before the build is copied when the
        /// profiles are known by then (`--require-devices`); without it, each is a warning.
        public var requireDevices = false
        /// The enrollment page the install page links to ("Not on the list? Register this iPhone").
        public var enrollURL: String?
        public var now = Date()

        public init(environment: String, input: String, baseURL: String, out: String) {
            self.environment = environment
            self.input = input
            self.baseURL = baseURL
            self.out = out
        }
    }

    public struct Result: Sendable {
        public var environment: String
        public var version: String
        public var build: String
        public var releaseFolder: String
        /// The release's folder relative to DIST (`Staging/1.4.0-42`).
        public var releasePath: String
        public var ipa: String
        public var pageURL: String
        public var manifestURL: String
        public var installURL: String
        public var warnings: [Diagnostic]
        /// What the published ipa's signature says: `valid`, `broken`, `unsigned` or `ad-hoc`.
        public var signature: String
        /// The signature check's one line (what CI shows).
        public var signatureSummary: String
        /// Who signed the published app, its team and cdhash (hex), as `codesign verify` reads them;
        /// empty when unsigned.
        public var signer = ""
        public var team = ""
        public var cdhash = ""

        public init(
            environment: String, version: String, build: String, releaseFolder: String, releasePath: String, ipa: String,
            pageURL: String, manifestURL: String, installURL: String, warnings: [Diagnostic], signature: String = "",
            signatureSummary: String = ""
        ) {
            self.environment = environment
            self.version = version
            self.build = build
            self.releaseFolder = releaseFolder
            self.releasePath = releasePath
            self.ipa = ipa
            self.pageURL = pageURL
            self.manifestURL = manifestURL
            self.installURL = installURL
            self.warnings = warnings
            self.signature = signature
            self.signatureSummary = signatureSummary
        }
    }

    public var options: Options
    /// Called as each step starts and finishes (for progress lines and CI service messages).
    public var onStep: (@Sendable (_ step: String, _ finished: Bool) -> Void)?

    public init(options: Options) { self.options = options }

    func step<T>(_ name: String, _ body: () throws -> T) throws -> T {
        onStep?(name, false)
        Interruption.pause(at: "step:" + name)
        do {
            let value = try body()
            onStep?(name, true)
            return value
        } catch let failure as Diagnostic where failure.code == .build(.stepFailed) {
            throw failure
        } catch  where DiskSpace.isFull(error) {
            // Whatever was being written (a copy named like the input, a file of the release being
            // assembled, which never appears under that name), it was written into DIST.
            throw Diagnostic.stepFailed(
                name, reason: DiskSpace.fullError(writing: options.out).description,
                hint: "free space on that disk, or release into a DIST on another one (--out)")
        } catch let errors as Diagnostics {
            throw Diagnostic.stepFailed(name, reason: errors.items.map(\.description).joined(separator: "; "))
        } catch let error as Diagnostic {
            throw Diagnostic.stepFailed(name, reason: error.description, hint: error.hint)
        } catch {
            throw Diagnostic.stepFailed(name, reason: FoundationError.line(error))
        }
    }

    /// Runs every step; warnings and failures name the user's paths (the input, DIST and the release
    /// folder), never the temporary folder the release is assembled in.
    public func run() throws -> Result {
        let paths = StagePaths(stage: FileIO.temporaryPath(for: options.out + "/release"), input: options.input, out: options.out)
        do {
            var result = try run(in: paths)
            paths.releaseFolder = result.releaseFolder
            result.warnings = result.warnings.map { $0.mappingText(paths.userFacing) }
            result.signatureSummary = paths.userFacing(result.signatureSummary)
            return result
        } catch let failure as Diagnostic where failure.code == .build(.stepFailed) {
            throw Diagnostic.stepFailed(
                paths.userFacing(failure.subject ?? ""), reason: paths.userFacing(failure.message), hint: failure.hint)
        }
    }

    private func run(in paths: StagePaths) throws -> Result {
        var warnings: [Diagnostic] = []
        let (environment, environmentWarnings) = try step("Resolve environment") {
            try EnvironmentResolver(
                store: try EnvironmentStore(at: options.environmentsFolder, limits: options.limits.plist), overrides: options.overrides,
                settings: options.settings, processEnvironment: options.processEnvironment, variablePolicy: options.variablePolicy
            )
            .resolveForApplying(options.environment)
        }
        warnings += environmentWarnings
        let (deviceCheck, enrollURL, signing, publication) = try checkBeforeCopying(environment)
        try FileIO.createFolder(options.out)
        FileIO.removeStaleTemporaries(in: options.out)
        let stage = paths.stage
        try FileIO.createFolder(stage)
        // Hidden, and readable by this user alone: a web server serving DIST as another user is refused it.
        chmod(stage, 0o700)
        // The copy the release signed goes once it is packaged and its signature checked, while the
        // ipa is verified and the page written.
        var copyRemoval: BackgroundResult<Void, Never>?
        defer {
            copyRemoval?.get()
            FileIO.removeTree(stage)
        }

        // When the build was made, read before re-signing replaces its signing time (from an ipa's
        // unpacked app, so its executable is not inflated once more for it).
        var built: BuildTime?
        var signed: SignedCopy?
        defer { _ = try? signed?.check?.get() }  // before the copy it reads is removed
        let ipa = try makeIPA(
            environment: environment, stage: stage, signing: signing, built: &built, signed: &signed, warnings: &warnings)
        if let started = signed?.check {
            // Packaged and checked (the check took less time than packaging): nothing reads the copy now.
            _ = try? started.get()
            let copy = stage + "/input"
            copyRemoval = BackgroundResult(thread: "adhocbuild.remove-copy") { _ = FileIO.removeTree(copy) }
        }
        // An ipa packaged here was read back and checked entry by entry as it was written.
        let app = try verify(ipa, checkEntries: ipa == options.input, warnings: &warnings)
        let signature = try checkSignature(ipa, signedApp: signed, warnings: &warnings)
        let deviceReach = try deviceCheck.map { check in
            try step("Check the devices") {
                let (reach, found) = try check.check(app)
                warnings += found
                return reach
            }
        }
        let version = app.shortVersion ?? "0", build = app.buildVersion ?? "0"
        try step("Check the versions name a folder") {
            for (key, value) in [("CFBundleShortVersionString", version), ("CFBundleVersion", build)] {
                try Self.checkFolderName(value, key: key, input: options.input)
            }
        }
        let releasePath = environment.name + "/" + "\(version)-\(build)"
        let baseURL = try step("Work out URLs") {
            try releaseBaseURL(environment: environment.name, version: version, build: build)
        }
        let page = try step("Write the manifest, page, icons and feeds") {
            var pageOptions = try pageOptions(environment: environment, baseURL: baseURL)
            (pageOptions.buildDate, pageOptions.buildDateSource) = (built?.date, built?.source)
            pageOptions.signature = signature.state.rawValue
            (pageOptions.deviceReach, pageOptions.enrollURL) = (deviceReach, enrollURL)
            (pageOptions.signer, pageOptions.team, pageOptions.cdhash) = (signature.signer, signature.team, signature.cdhash)
            if signature.state == .broken {
                pageOptions.signatureNotice =
                    "This build’s code signature is broken, so iOS will not install it until it is re-signed."
            } else if signature.state == .uninstallable {
                pageOptions.signatureNotice =
                    "This build’s signature does not fit its provisioning profile, so iOS will not install it until it is re-signed."
            }
            return try InstallPage(options: pageOptions).write(ipa: ipa, to: stage + "/release")
        }
        warnings += page.warnings
        let releaseFolder = options.out + "/" + releasePath
        paths.releaseFolder = releaseFolder
        warnings += try step("Publish into \(options.out)") {
            try DirectoryLock.withLock(options.out) {
                // Once begun, publishing finishes (or undoes itself) before an interrupt is let through.
                try Interruption.pointOfNoReturn(done: "\(releaseFolder) was published") {
                    try publication.publish(
                        stage + "/release", as: "\(version)-\(build)", replace: options.replace, indexTitle: options.indexTitle)
                }
                // The index's problems (an unreadable build.json of another release) are told, not fatal.
                .map { Diagnostic(.manifest(.buildInfo), $0, severity: .warning) }
            }
        }
        var result = Result(
            environment: environment.name, version: version, build: build, releaseFolder: releaseFolder,
            releasePath: releasePath, ipa: releaseFolder + "/" + (ipa as NSString).lastPathComponent,
            pageURL: page.pageURL, manifestURL: page.manifestURL, installURL: page.installURL, warnings: warnings,
            signature: signature.state.rawValue, signatureSummary: signature.summary)
        (result.signer, result.team, result.cdhash) = (signature.signer ?? "", signature.team ?? "", signature.cdhash ?? "")
        if let upload = options.upload {
            let uploaded = try step("Upload to \(upload.store.location)") {
                try upload.publishFinishing(releaseFolder, indexTitle: options.indexTitle)
            }
            (result.pageURL, result.manifestURL, result.installURL) = (uploaded.links.page, uploaded.links.manifest, uploaded.links.install)
            result.warnings += uploaded.warnings
        }
        return result
    }

    /// The ipa to publish: an .ipa input as it is when it already is what the release asks for
    /// (the environment's values, no build number, no signing); otherwise the build (an .app or
    /// .xcarchive copied, an .ipa or a .zip holding an .app unpacked) in the stage, given the
    /// environment and build number, signed when asked, and packaged (an ipa's unchanged entries
    /// carried into the new one as they were compressed). `built` is when the build was made;
    /// `signed` the app folder signed here, which the ipa holds file for file (see ``checkSignature``).
    ///
    /// An ipa is unpacked leaving in it the files no step reads (``UnpackedApp``): they go into the
    /// new ipa as they were compressed, and are sealed and checked by the digests taken as they were read.
    private func makeIPA(
        environment: ResolvedEnvironment, stage: String, signing: BundleSigningOptions?, built: inout BuildTime?,
        signed: inout SignedCopy?, warnings: inout [Diagnostic]
    ) throws -> String {
        // A bundle is named by its own folder (a link, `.` resolved); an ipa keeps the user's path.
        let isFolder = FileIO.kind(of: options.input) == .folder
        let input = isFolder ? IPAPackager.bundlePath(options.input) : options.input
        if !isFolder, signing == nil, case .unchanged = options.buildNumber, input.lowercased().hasSuffix(".ipa") {
            let differences = try step("Check the .ipa against \(environment.name)") {
                var applier = EnvironmentApplier(environment: environment)
                applier.limits = options.limits
                return try applier.differences(from: try AppPackage.open(input, limits: options.limits).app)
            }
            if differences.isEmpty {
                built = BuildTime.of(input, limits: options.limits)
                return input  // published as it is
            }
        }
        if isFolder { built = BuildTime.of(input, limits: options.limits) }
        var digests: DigestCache?
        var unpacked: UnpackedApp?
        let (copy, app) = try step(isFolder ? "Copy the build" : "Unpack the build") {
            if !isFolder {
                // What no step reads stays in the ipa, and goes into the new one as it was compressed.
                let opened = try UnpackedApp.unpack(input, into: stage + "/input", limits: options.limits.archive, leaving: true)
                unpacked = opened
                digests = opened.digests
                built = BuildTime.of(opened.app, limits: options.limits)
                return (opened.app, opened.app)
            }
            let target = stage + "/input/" + (input as NSString).lastPathComponent
            try FileIO.createFolder(stage + "/input")
            // Hashed as it is copied when signing, so the signer reads again only what the release changes.
            digests = try BuildCopy.copy(input, to: target, hashing: signing != nil)
            return (target, try IPAPackager.locateApp(target).app)
        }
        if let warning = ExecutableModes.warning(try ExecutableModes.restore(in: app, limits: options.limits.plist), shown: app) {
            warnings.append(warning)
        }
        warnings += try step("Apply environment \(environment.name)") {
            var applier = EnvironmentApplier(environment: environment, allowBrokenSignature: options.allowBrokenSignature)
            applier.limits = options.limits
            applier.willBeSigned = signing != nil
            return try applier.apply(toApp: app)
        }.warnings
        if let request = buildNumberRequest {
            _ = try step("Set build number") {
                var bumper = VersionBumper(
                    target: .app(app), field: .build, allowDecrease: options.allowDecrease,
                    allowBrokenSignature: options.allowBrokenSignature)
                bumper.willBeSigned = signing != nil
                bumper.limits = options.limits
                var bumpWarnings: [Diagnostic] = []
                defer { warnings += bumpWarnings }
                return try bumper.bump(request, warnings: &bumpWarnings)
            }
        }
        var packaging = IPAPackager.Options()
        // When signing, the signer has embedded each bundle's profile already.
        packaging.profile = signing == nil ? options.profile : nil
        packaging.profileLimits = options.limits.plist
        if let unpacked { packaging = unpacked.packaging(packaging) }
        // Written where the release is assembled, so the page has no copy of it to make.
        try FileIO.createFolder(stage + "/release")
        if let signing {
            // While a copied app is signed, the files signing does not write are compressed (an ipa's are carried).
            let ahead =
                isFolder
                ? digests.map { PackagingAhead.start(app: app, digests: $0, spoolIn: stage + "/release", options: packaging) } : nil
            do {
                _ = try step("Sign as \(signing.signerName)") {
                    try digests.map { try BundleSigner.sign(bundle: app, options: signing, digests: $0) }
                        ?? BundleSigner.sign(bundle: app, options: signing)
                }
            } catch {
                _ = try? ahead?.get()
                throw error
            }
            packaging.ahead = try ahead?.get()
        }
        // A copied app signed here is checked while it is packaged: the check reads the folder
        // (what the copy hashed by its digests), as packaging does, and writes nothing.
        let check = signing != nil && isFolder ? digests.map { startSignatureCheck(copy: app, known: $0) } : nil
        return try step("Package") {
            do {
                if signing == nil, let profile = options.profile, let warning = try profileSealCheck(app: app, profile: profile) {
                    warnings.append(warning)
                }
                // Named after the app's folder, which the build names: one safe file name, as every published name.
                let name =
                    SafeFileName.from(((app as NSString).lastPathComponent as NSString).deletingPathExtension, fallback: "app") + ".ipa"
                let report = try IPAPackager(options: packaging).package(copy, to: stage + "/release/" + name)
                if signing != nil { signed = SignedCopy(app: app, carried: unpacked?.carried, digests: digests, check: check) }
                // The signature check below says what a different profile does to a signature, exactly.
                warnings += report.warnings.filter { $0.code != .ipa(.signatureInvalidated) }
                return report.output
            } catch {
                _ = try? check?.get()  // it reads the folder the caller removes
                throw error
            }
        }
    }

    /// Starts checking the signature of `copy`, a copied app signed here whose files had the digests
    /// `known` when copied, on a thread of its own (``checkSignature(_:signedApp:warnings:)`` takes it).
    private func startSignatureCheck(copy: String, known: DigestCache) -> BackgroundResult<SignatureReport, any Error> {
        let (now, allowExpired, limits) = (options.now, options.allowExpired, options.limits)
        return BackgroundResult(thread: "adhocbuild.signature-check") {
            try SignatureReport.verify(copy: copy, carried: nil, known: known, now: now, allowExpired: allowExpired, limits: limits)
        }
    }

    /// The app folder a release signed, which the ipa it packaged holds file for file; for an ipa's
    /// unpacked app, with the files the unpack left in the ipa (``UnpackedApp``); and the digests its
    /// files had as they were copied or unpacked; and the check of its signature started while it
    /// was packaged, if one was.
    struct SignedCopy {
        var app: String
        var carried: CarriedEntries?
        var digests: DigestCache?
        var check: BackgroundResult<SignatureReport, any Error>?
    }

    /// Opens and checks the ipa as a device would; errors fail the step, warnings are kept.
    private func verify(_ ipa: String, checkEntries: Bool, warnings: inout [Diagnostic]) throws -> AppBundle {
        try step("Verify") { () -> AppBundle in
            let package = try AppPackage.open(ipa, limits: options.limits)
            var verifier = AppVerifier(now: options.now)
            verifier.allowExpired = options.allowExpired
            verifier.checkEntries = checkEntries
            let findings = verifier.verify(package)
            warnings += findings.filter { $0.severity == .warning }
            let errors = findings.filter { $0.severity == .error }
            if !errors.isEmpty { throw Diagnostic.stepFailed("Verify", reason: errors.map(\.description).joined(separator: "; ")) }
            return package.app
        }
    }

    /// Embedding a profile other than the app's own changes `embedded.mobileprovision`, which a
    /// signature seals: refused for a signed app unless `allowBrokenSignature` (then a warning).
    private func profileSealCheck(app: String, profile: String) throws -> Diagnostic? {
        let embedded = (app as NSString).appendingPathComponent("embedded.mobileprovision")
        let current = try? FileIO.read(embedded, limit: InputLimits.provisioningProfile)
        guard try FileIO.read(profile, limit: InputLimits.provisioningProfile) != current else { return nil }
        return try SealGuard.check(
            app: app, action: "embedding \(profile)",
            changes: current == nil ? "adds embedded.mobileprovision" : "replaces embedded.mobileprovision",
            allowBroken: options.allowBrokenSignature, limits: options.limits.plist)
    }

    /// Verifies the seal and signature of the ipa about to be published. Unsigned and ad-hoc builds
    /// are warnings; a broken signature fails the step unless `allowBrokenSignature` (then a warning).
    ///
    /// An app signed here (`signedApp`) is checked in its folder rather than inflated from the ipa
    /// once more: the packager proved the ipa holds exactly its files (every entry compressed here
    /// inflated again and checked against the CRC of the file's bytes as they were read, every entry
    /// carried checked as ``CarriedEntries`` says, the folder walked for the list of entries), and
    /// nothing else writes to the folder. A file still as it was copied or unpacked, and every file an
    /// unpacked ipa left in it, is checked by the digests taken then: its bytes went into the new ipa
    /// as they were read then (or stored, and the packager checked its copy of them against the CRC
    /// of the stored bytes read).
    private func checkSignature(_ ipa: String, signedApp: SignedCopy?, warnings: inout [Diagnostic]) throws -> SignatureReport {
        try step("Check the signature") { () -> SignatureReport in
            let check: SignatureReport
            if let started = signedApp?.check {
                check = try started.get()
            } else if let signedApp, let known = signedApp.digests {
                check = try SignatureReport.verify(
                    copy: signedApp.app, carried: signedApp.carried, known: known, now: options.now, allowExpired: options.allowExpired,
                    limits: options.limits)
            } else {
                check = try SignatureReport.verify(
                    path: signedApp?.app ?? ipa, now: options.now, allowExpired: options.allowExpired, limits: options.limits)
            }
            warnings += check.expiredLetThrough.map {
                Diagnostic(.codeSign($0.kind), "\($0); iOS will not install it (going on: --allow-expired)", severity: .warning)
            }
            switch check.state {
            case .valid:
                break
            case .unsigned, .adHoc:
                warnings.append(Diagnostic(.build(.signature), check.summary, severity: .warning))
            case .broken, .uninstallable:
                guard options.allowBrokenSignature else {
                    throw Diagnostic.stepFailed(
                        "Check the signature", reason: check.summary,
                        hint: "re-sign the app, or pass \(SealGuard.allowFlag) to publish it anyway")
                }
                warnings.append(
                    Diagnostic(
                        .build(.signatureBroken),
                        check.summary + "; publishing it anyway (\(SealGuard.allowFlag)): its page and the index say it will not "
                            + "install until it is re-signed", severity: .warning))
            }
            return check
        }
    }

    /// The install page's options: the environment's title and subtitle, the notes, the CI's commit and branch.
    private func pageOptions(environment: ResolvedEnvironment, baseURL: String) throws -> InstallPage.Options {
        var pageOptions = InstallPage.Options(baseURL: baseURL)
        pageOptions.limits = options.limits
        pageOptions.checkEntries = false  // the Verify step read every entry
        pageOptions.expiredProfile = .accept  // the Verify step refused it, or warned with --allow-expired
        pageOptions.allowHTTP = options.allowHTTP
        pageOptions.environment = environment.name
        pageOptions.subtitle = environment.distribution["Subtitle"]?.stringValue
        pageOptions.title = environment.distribution["Title"]?.stringValue
        if let notes = options.notes {
            pageOptions.notes = String(decoding: try FileIO.read(notes, limit: InputLimits.releaseNotes), as: UTF8.self)
        }
        pageOptions.icon = options.icon
        pageOptions.commit = CIEnvironment.commit(in: options.processEnvironment)
        pageOptions.branch = CIEnvironment.branch(in: options.processEnvironment)
        pageOptions.now = options.now
        return pageOptions
    }

    /// A version from the app's Info.plist names the release's folder (`<version>-<build>`), so it
    /// must stay one name: no `/` or `\\` (which would put the release elsewhere, even outside
    /// DIST) and no control characters.
    static func checkFolderName(_ value: String, key: String, input: String) throws {
        guard let bad = value.unicodeScalars.first(where: { $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F }) else {
            return
        }
        let shown = bad.value < 0x20 || bad.value == 0x7F ? String(format: "U+%04X", bad.value) : "'\(bad)'"
        throw Diagnostic.build(
            "the app's \(key) \(String(reflecting: value)) holds \(shown), so it cannot name a release folder; "
                + "versions are like 42 or 1.4.2", file: input)
    }
}

extension ReleasePipeline {
    /// Where the release is served. `options.baseURL` is the user's and is kept byte for byte; only
    /// what the tool adds is percent-encoded: the environment, version and build put into a template's
    /// `{env}`, `{version}` and `{build}`, or, without placeholders, the `<env>/<version>-<build>/` path
    /// appended to it. `{NAME}` takes the environment variable NAME as it is (it may hold a URL), when
    /// `options.variablePolicy` allows it.
    func releaseBaseURL(environment: String, version: String, build: String) throws -> String {
        let placeholders = ["env": environment, "version": version, "build": build]
        // One pass over the user's template: what a placeholder is replaced by is never read again, so
        // a value holding `{NAME}` (BRANCH='{BRANCH}') is text, not a loop.
        var template = ""
        var hasPlaceholders = false
        // What a process variable put in, named by the errors, since the template does not show it.
        var sources = options.baseURLSource.map { ["it is made from \($0)"] } ?? []
        var rest = Substring(options.baseURL)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            template += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            if let value = placeholders[name] {
                hasPlaceholders = true
                template += URLEncoding.encodeComponent(value)
            } else {
                let value = try environmentValue(name)
                sources.append("{\(name)} is \(name) from the process environment, '\(value)'")
                template += value
            }
            rest = rest[rest.index(after: close)...]
        }
        template += rest
        let base: String
        do { base = try URLEncoding.baseURL(template, allowHTTP: options.allowHTTP, shownAs: options.baseURL) } catch let failure
            as Diagnostic where failure.code == .manifest(.baseURL) && !sources.isEmpty
        {
            throw Diagnostic.manifest(.baseURL, failure.description + " (" + sources.joined(separator: "; ") + ")")
        }
        return hasPlaceholders ? base : URLEncoding.join(base, segments: [environment, "\(version)-\(build)"]) + "/"
    }

    /// The process variable a base URL template's `{NAME}` takes, when the variable policy allows it.
    private func environmentValue(_ name: String) throws -> String {
        let set = options.processEnvironment[name]
        if let problem = options.variablePolicy.problem(
            reading: name, as: "the base URL template's {\(name)}", isSet: set != nil, settable: false)
        {
            throw Diagnostic.build(problem)
        }
        guard let value = set else { throw Diagnostic.build("the base URL template uses {\(name)}, which is not set") }
        return value
    }
}

/// The temporary folder a release is assembled in, and how to say its paths to the user.
final class StagePaths {
    let stage: String
    let input: String
    let out: String
    /// Where the release is published, once its version and build are known.
    var releaseFolder: String?

    init(stage: String, input: String, out: String) {
        self.stage = stage
        self.input = input.hasSuffix("/") ? String(input.dropLast()) : input
        self.out = out
    }

    /// `text` with paths inside the stage replaced by the user's: the copied build by the input as
    /// given, the release being assembled by its published folder, anything else by DIST.
    func userFacing(_ text: String) -> String {
        guard text.contains(stage) else { return text }
        let published = releaseFolder ?? out
        // An unpacked ipa's files are named as entries of the ipa: `in.ipa: Payload/A.app/Info.plist`.
        let isUnpacked = FileIO.kind(of: input) == .file
        return
            text
            .replacingOccurrences(
                of: stage + "/input/" + (isUnpacked ? "" : (input as NSString).lastPathComponent), with: input + (isUnpacked ? ": " : "")
            )
            .replacingOccurrences(of: stage + "/release", with: published)
            .replacingOccurrences(of: stage, with: published)
    }
}

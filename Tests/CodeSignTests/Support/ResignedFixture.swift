import CodeSign
import Foundation
import IPAKit
import PlistKit
import TestSupport
import Testing

/// A fixture ipa unpacked twice with ``ZipArchiveReader`` (the original, and a copy re-signed in place
/// by ``BundleSigner`` with a test identity and a test profile for `ABCDE12345.*`, one for every
/// nested bundle too). The profile grants get-task-allow as the original app's entitlements do, so
/// the execSeg flags can be compared with Apple's.
struct ResignedFixture: CustomStringConvertible {
    let ipa: String
    /// The `.app` folder as the ipa holds it.
    let original: String
    /// The `.app` folder after signing.
    let app: String
    let identity: SigningIdentity
    let report: BundleSigningReport

    var description: String { "\(ipa) (\(identity.certificate.displayName))" }

    /// Every fixture ipa's name.
    static func names() -> [String] { Fixtures.files(in: "ipa").map(\.lastPathComponent).filter { $0.hasSuffix(".ipa") } }

    /// The identities the fixtures are signed with: RSA, EC, and a leaf issued by the test CA.
    static func identities(_ made: TestIdentities) throws -> [SigningIdentity] {
        try [made.rsa, made.ec, made.leafWithCA].map { try SigningIdentity(p12: $0, password: .file(made.passwordFile)) }
    }

    /// Unpacks `ipa` into `folder` and signs a copy with `identity`.
    init(_ ipa: String, identity: SigningIdentity, made: TestIdentities, in folder: TemporaryFolder) throws {
        self.ipa = ipa
        self.identity = identity
        let tag = "\(ipa)-\(identity.certificate.der.count)-\(UUID().uuidString)"
        original = try Self.unpack(ipa, to: folder.path("original-" + tag))
        app = try Self.unpack(ipa, to: folder.path("signed-" + tag))
        let originalTaskAllow = try Self.entitlements(ofBundle: original)?["get-task-allow"]?.boolValue ?? false
        var spec = TestProfile(certificates: [identity.certificate.der])
        spec.getTaskAllow = originalTaskAllow
        let profile = try ProfileFile(path: try spec.write("profile-\(tag).mobileprovision", with: made))
        var byIdentifier: [String: ProfileFile] = [:]
        for nested in Self.nestedBundles(app) {
            if let identifier = try Self.info(nested)["CFBundleIdentifier"]?.stringValue { byIdentifier[identifier] = profile }
        }
        let options = BundleSigningOptions(identity: identity, appProfile: profile, profiles: byIdentifier)
        report = try BundleSigner.sign(bundle: app, options: options)
    }

    /// Every fixture re-signed with every test identity.
    static func all(in folder: TemporaryFolder) throws -> [ResignedFixture] {
        let made = try TestIdentities.make(in: folder)
        let identities = try identities(made)
        return try names().flatMap { ipa in try identities.map { try ResignedFixture(ipa, identity: $0, made: made, in: folder) } }
    }

    static func unpack(_ ipa: String, to target: String) throws -> String {
        try ZipArchiveReader(path: Fixtures.url("ipa", ipa).path).extract(to: target)
        let apps = try FileManager.default.contentsOfDirectory(atPath: target + "/Payload").filter { $0.hasSuffix(".app") }
        guard apps.count == 1 else { throw SetupFailure("\(ipa) holds \(apps.count) apps") }
        return target + "/Payload/" + apps[0]
    }

    static func info(_ bundle: String) throws -> PlistDictionary {
        try #require(try PropertyList(data: Data(contentsOf: URL(fileURLWithPath: bundle + "/Info.plist"))).value.dictionaryValue)
    }

    /// The `.appex` and `.app` folders below `bundle` that hold an Info.plist.
    static func nestedBundles(_ bundle: String) -> [String] {
        let walker = FileManager.default.enumerator(atPath: bundle)
        var out: [String] = []
        while let relative = walker?.nextObject() as? String {
            if relative.hasSuffix(".appex") || relative.hasSuffix(".app"),
                FileManager.default.fileExists(atPath: bundle + "/" + relative + "/Info.plist")
            {
                out.append(bundle + "/" + relative)
            }
        }
        return out.sorted()
    }

    /// The entitlements in the signature of `bundle`'s executable.
    static func entitlements(ofBundle bundle: String) throws -> PlistDictionary? {
        let executable = try #require(try info(bundle)["CFBundleExecutable"]?.stringValue)
        let file = try MachOFile(contentsOf: bundle + "/" + executable)
        return try file.slices.first?.embeddedSignature()?.entitlements?.entitlements().dictionaryValue
    }

    /// Every Mach-O file in `bundle` by its path relative to it, sorted.
    static func machOFiles(_ bundle: String) throws -> [String] {
        let walker = FileManager.default.enumerator(atPath: bundle)
        var out: [String] = []
        while let relative = walker?.nextObject() as? String {
            let path = bundle + "/" + relative
            let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
            guard type == .typeRegular, let handle = FileHandle(forReadingAtPath: path) else { continue }
            defer { try? handle.close() }
            if MachOFile.looksLikeMachO(handle.readData(ofLength: 4)) { out.append(relative) }
        }
        return out.sorted()
    }
}

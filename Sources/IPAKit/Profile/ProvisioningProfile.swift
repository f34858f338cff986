import Foundation
import PlistKit
import SystemSupport

/// A provisioning profile: the plist inside its CMS (PKCS #7) envelope, read by parsing the
/// envelope's structure (not by scanning for `<?xml`). Apple's signature is not verified.
public struct ProvisioningProfile: Sendable {
    /// What a profile allows, from Apple's rule: all devices means enterprise (in-house); no
    /// device list means App Store; a device list with `get-task-allow` means development, without it ad hoc
    /// (macOS profiles, which carry no `get-task-allow`, are told apart by their certificates).
    public enum Kind: String, Sendable {
        case development
        case adHoc = "ad-hoc"
        case enterprise
        case appStore = "app-store"

        /// Whether iOS will install an app signed with it over the air.
        public var installsOverTheAir: Bool { self != .appStore }
    }

    /// The profile's own plist.
    public var plist: PlistDictionary
    /// Common names of the certificates that signed the envelope (not verified).
    public var signers: [String]

    public var name: String { plist["Name"]?.stringValue ?? "" }
    public var uuid: String { plist["UUID"]?.stringValue ?? "" }
    public var teamName: String { plist["TeamName"]?.stringValue ?? "" }
    public var teamIdentifier: String {
        plist["TeamIdentifier"]?.arrayValue?.first?.stringValue ?? entitlements["com.apple.developer.team-identifier"]?.stringValue ?? ""
    }
    public var appIDName: String { plist["AppIDName"]?.stringValue ?? "" }
    public var platforms: [String] { plist["Platform"]?.arrayValue?.compactMap(\.stringValue) ?? [] }
    public var creationDate: Date? { if case .date(let date)? = plist["CreationDate"] { return date.date } else { return nil } }
    public var expirationDate: Date? { if case .date(let date)? = plist["ExpirationDate"] { return date.date } else { return nil } }
    public var devices: [String] { plist["ProvisionedDevices"]?.arrayValue?.compactMap(\.stringValue) ?? [] }
    public var provisionsAllDevices: Bool { plist["ProvisionsAllDevices"]?.boolValue ?? false }
    public var isXcodeManaged: Bool { plist["IsXcodeManaged"]?.boolValue ?? false }
    public var entitlements: PlistDictionary { plist["Entitlements"]?.dictionaryValue ?? PlistDictionary() }

    /// `TEAMID.com.example.app` or `TEAMID.*` (macOS profiles use `com.apple.application-identifier`).
    public var applicationIdentifier: String? {
        entitlements["application-identifier"]?.stringValue ?? entitlements["com.apple.application-identifier"]?.stringValue
    }

    public var getTaskAllow: Bool {
        entitlements["get-task-allow"]?.boolValue ?? entitlements["com.apple.security.get-task-allow"]?.boolValue ?? false
    }
    public var apsEnvironment: String? {
        entitlements["aps-environment"]?.stringValue ?? entitlements["com.apple.developer.aps-environment"]?.stringValue
    }

    public var kind: Kind {
        if provisionsAllDevices { return .enterprise }
        if plist["ProvisionedDevices"] == nil { return .appStore }
        if entitlements["get-task-allow"] != nil || entitlements["com.apple.security.get-task-allow"] != nil {
            return getTaskAllow ? .development : .adHoc
        }
        // macOS profiles carry no get-task-allow; their certificates tell development from distribution.
        let developer = developerCertificates.contains { $0.name.contains("Development") || $0.name.contains("Developer") }
        return developer ? .development : .adHoc
    }

    /// Whether the profile's App ID (wildcards included) covers `bundleIdentifier`.
    public func matches(bundleIdentifier: String) -> Bool {
        guard let applicationIdentifier, let dot = applicationIdentifier.firstIndex(of: ".") else { return false }
        let pattern = applicationIdentifier[applicationIdentifier.index(after: dot)...]
        if pattern == "*" { return true }
        if pattern.hasSuffix(".*") { return bundleIdentifier.hasPrefix(pattern.dropLast()) }
        return pattern == bundleIdentifier
    }

    /// Whether `udid` is in the profile (always, for an enterprise profile).
    public func includes(device udid: String) -> Bool {
        provisionsAllDevices || devices.contains { $0.caseInsensitiveCompare(udid) == .orderedSame }
    }

    static let signedDataOID = "1.2.840.113549.1.7.2"
    static let dataOID = "1.2.840.113549.1.7.1"
    static let commonNameOID = "2.5.4.3"

    /// Reads a `.mobileprovision` (or `.provisionprofile`) file.
    public init(contentsOf path: String, limits: PlistLimits = .default) throws {
        let data = try FileIO.read(path, limit: InputLimits.provisioningProfile)
        do { try self.init(data: data, limits: limits) } catch let error as Diagnostic where error.is(IPAProblem.self) {
            throw error.inFile(path)
        }
    }

    public init(data: Data, limits: PlistLimits = .default) throws {
        let bytes = [UInt8](data)
        do {
            let (contentInfo, trailing) = try DERElement.read(bytes[...])
            guard trailing.allSatisfy({ $0 == 0 }) else { throw DERElement.Failure(description: "bytes after the envelope") }
            let outer = try contentInfo.children()
            guard outer.count >= 2, outer[0].objectIdentifierString == Self.signedDataOID else {
                throw DERElement.Failure(description: "not a CMS SignedData envelope")
            }
            let signedData = try outer[1].children()
            guard let signed = signedData.first, signed.tag == DERElement.sequence else {
                throw DERElement.Failure(description: "SignedData is missing")
            }
            let fields = try signed.children()
            guard fields.count >= 3, fields[2].tag == DERElement.sequence else {
                throw DERElement.Failure(description: "SignedData has no encapsulated content")
            }
            let encapsulated = try fields[2].children()
            guard encapsulated.first?.objectIdentifierString == Self.dataOID, encapsulated.count == 2 else {
                throw DERElement.Failure(description: "the encapsulated content is not data")
            }
            guard let octets = try encapsulated[1].children().first else {
                throw DERElement.Failure(description: "the encapsulated content is empty")
            }
            let payload = try octets.octets()
            let certificates = fields.dropFirst(3).first { $0.tag == 0xA0 }
            signers = (try? certificates?.children().compactMap { try? ProvisioningProfile.commonName(ofCertificate: $0) }) ?? []
            let value: PlistValue
            do { value = try PropertyList(data: Data(payload), limits: limits).value } catch let error as Diagnostic
                where error.is(PlistProblem.self)
            {
                throw Diagnostic.ipa("the profile's plist is invalid: \(error.description)")
            }
            guard case .dictionary(let dictionary) = value else { throw Diagnostic.ipa("the profile's plist is not a dictionary") }
            try Self.checkFieldTypes(dictionary)
            plist = dictionary
        } catch let error as DERElement.Failure {
            throw Diagnostic.ipa("is not a provisioning profile (CMS envelope: \(error.description))")
        }
    }

    /// The kind of value each field Apple's profiles hold has, and for arrays the kind of their items.
    static let fieldKinds: [(key: String, kind: String, items: String?)] = [
        ("Name", "string", nil), ("UUID", "string", nil), ("TeamName", "string", nil), ("AppIDName", "string", nil),
        ("TeamIdentifier", "array", "string"), ("Platform", "array", "string"), ("ApplicationIdentifierPrefix", "array", "string"),
        ("ProvisionedDevices", "array", "string"), ("DeveloperCertificates", "array", "data"), ("CreationDate", "date", nil),
        ("ExpirationDate", "date", nil), ("ProvisionsAllDevices", "bool", nil), ("IsXcodeManaged", "bool", nil),
        ("Entitlements", "dictionary", nil), ("TimeToLive", "integer", nil), ("Version", "integer", nil)
    ]

    /// A profile whose fields are not of the kinds Apple writes is refused (it was shown as ad hoc with
    /// blank fields and embedded by `package --profile`).
    static func checkFieldTypes(_ plist: PlistDictionary) throws {
        for field in fieldKinds {
            guard let value = plist[field.key] else { continue }
            // PlistKit names a dictionary's kind "dict"; the messages keep the field's own word.
            guard value.kindName == (field.kind == "dictionary" ? "dict" : field.kind) else {
                throw Diagnostic.ipa(
                    "the profile's \(field.key) is \(value.kindWithArticle), not \(PlistValue.withArticle(field.kind))")
            }
            if let items = field.items, let index = value.arrayValue?.firstIndex(where: { $0.kindName != items }) {
                let item = value.arrayValue![index]
                throw Diagnostic.ipa(
                    "the profile's \(field.key)[\(index)] is \(item.kindWithArticle), not \(PlistValue.withArticle(items))")
            }
        }
    }

    /// The validity and subject fields of an X.509 certificate, or nil when it has too few fields.
    static func validityAndSubject(ofCertificate certificate: DERElement) throws -> (validity: DERElement, subject: DERElement)? {
        guard let signed = try certificate.children().first else { return nil }
        let tbs = try signed.children()
        // [0] version is optional; validity and subject are the fifth and sixth fields with it, else the fourth and fifth.
        let offset = tbs.first?.tag == 0xA0 ? 1 : 0
        guard tbs.count > 4 + offset else { return nil }
        return (tbs[3 + offset], tbs[4 + offset])
    }

    /// The subject common name of an X.509 certificate.
    static func commonName(ofCertificate certificate: DERElement) throws -> String? {
        guard let fields = try validityAndSubject(ofCertificate: certificate) else { return nil }
        return try commonName(inName: fields.subject)
    }

    static func commonName(inName name: DERElement) throws -> String? {
        for relativeName in try name.children() {
            for attribute in try relativeName.children() {
                let parts = try attribute.children()
                if parts.count == 2, parts[0].objectIdentifierString == commonNameOID { return parts[1].text }
            }
        }
        return nil
    }

    /// The DER bytes of each certificate in the profile's `DeveloperCertificates`, in order (entries that
    /// are not data are skipped): the certificates a signer must be one of.
    public var developerCertificateData: [[UInt8]] {
        (plist["DeveloperCertificates"]?.arrayValue ?? []).compactMap { value in
            if case .data(let data) = value { return [UInt8](data) } else { return nil }
        }
    }

    /// Common names and expiry dates of the developer certificates listed in the profile.
    public var developerCertificates: [(name: String, expires: Date?)] {
        developerCertificateData.compactMap { data in
            guard let (certificate, _) = try? DERElement.read(data[...]),
                let fields = (try? ProvisioningProfile.validityAndSubject(ofCertificate: certificate)) ?? nil
            else { return nil }
            let name = (try? ProvisioningProfile.commonName(inName: fields.subject)) ?? nil
            let validity = try? fields.validity.children()
            return (name ?? "?", validity?.count == 2 ? validity![1].date : nil)
        }
    }
}

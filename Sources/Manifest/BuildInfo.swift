import Foundation
import SystemSupport

/// `build.json`: what the index of builds needs to know about one release, written by `page` (and
/// `release`) beside the install page and read back by `index`. Every field is optional when
/// read, so hand-written and older files still index.
public struct BuildInfo: Codable, Equatable, Sendable {
    /// The profile the app is signed with.
    public struct Profile: Codable, Equatable, Sendable {
        /// `development`, `ad-hoc`, `enterprise` or `app-store`.
        public var type: String
        /// ISO 8601.
        public var expires: String?

        public init(type: String, expires: String?) {
            self.type = type
            self.expires = expires
        }
    }

    public var appName: String?
    public var bundleIdentifier: String?
    public var version: String?
    public var build: String?
    public var environment: String?
    /// When the release was published, ISO 8601 (`2026-01-31T10:00:00Z`): the index sorts by it. The same as
    /// `published`, which newer files carry too; older ones may hold another time here.
    public var date: String?
    /// When the release was published, ISO 8601.
    public var published: String?
    /// When the build was made (its archive's date, or its original signing time), ISO 8601; nil when unknown.
    public var built: String?
    /// The page, relative to the release's folder.
    public var page: String?
    /// The small icon, relative to the release's folder.
    public var icon: String?
    public var pageURL: String?
    public var manifestURL: String?
    public var ipaURL: String?
    public var installURL: String?
    /// The ipa's size in bytes.
    public var size: Int64?
    public var branch: String?
    public var commit: String?
    public var profile: Profile?
    /// What the build's code signature says: `valid`, `broken` (it will not install until it is
    /// re-signed), `unsigned` or `ad-hoc`; nil when it was not checked.
    public var signature: String?
    /// Who signed the published build (the signing certificate's common name), its team id and the
    /// app's cdhash (hex), as `codesign verify` reports them; nil when unsigned or not checked.
    public var signer: String?
    public var team: String?
    public var cdhash: String?
    /// How many of the listed testers' devices the build installs on, when `release --devices` named
    /// the list; nil otherwise.
    public var devices: DeviceReach?

    /// How many listed devices a build reaches.
    public struct DeviceReach: Codable, Equatable, Sendable {
        /// Listed devices every bundle's profile provisions.
        public var reached: Int
        /// Listed devices of the app's platform.
        public var listed: Int

        public init(reached: Int, listed: Int) {
            self.reached = reached
            self.listed = listed
        }

        /// "reaches 7 of 9 listed devices", as the index shows it.
        public var summary: String { "reaches \(reached) of \(listed) listed device\(listed == 1 ? "" : "s")" }
    }

    /// True when the build was published with a broken signature.
    public var signatureIsBroken: Bool { signature == "broken" }

    /// The team id to show after the signer's name: nil when the name already ends with it, as Apple's
    /// certificate names do (`Apple Development: Demo Signer (DEMO123456)`), so it is not said twice.
    public var teamNotInSigner: String? {
        guard let team, !team.isEmpty else { return nil }
        return signer?.hasSuffix("(\(team))") == true ? nil : team
    }

    public init() {}

    /// Pretty-printed JSON with sorted keys, so the same release gives the same bytes.
    public func jsonData() throws -> Data { try Self.stableJSON(self) }

    /// `value` as pretty-printed JSON with sorted keys and a final newline: the same value, the same
    /// bytes (`build.json`, `page.json`).
    static func stableJSON(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value) + Data("\n".utf8)
    }

    /// Reads a `build.json`; a file that is not one is an error that says what is wrong in one line.
    public init(json data: Data) throws {
        do { self = try JSONDecoder().decode(BuildInfo.self, from: data) } catch let error as DecodingError {
            throw Diagnostic.manifest(.buildInfo, Self.describe(error))
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func at(_ path: [CodingKey]) -> String { path.isEmpty ? "" : " at '\(path.map(\.stringValue).joined(separator: "."))'" }
        switch error {
        case .typeMismatch(let type, let context):
            return "expected \(type == Int64.self ? "a number" : type == String.self ? "a string" : "an object")\(at(context.codingPath))"
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return "not JSON"
        case .dataCorrupted(let context):
            return "bad value\(at(context.codingPath))"
        case .keyNotFound(let key, let context):
            return "missing '\(key.stringValue)'\(at(context.codingPath))"
        case .valueNotFound(_, let context):
            return "missing value\(at(context.codingPath))"
        @unknown default:
            return "not a build.json"
        }
    }
}

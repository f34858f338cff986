import CodeSign
import Foundation
import Manifest
import PlistKit
import SystemSupport

/// Writes an enrollment page's folder (`devices enroll-page`): `index.html`, `enroll.mobileconfig` (an
/// ``EnrollmentProfile``, signed when an identity is given), `thanks.html`, and their stylesheet and
/// scripts, all at once: into a new folder made under a temporary name and renamed into place, or, when the
/// folder exists, each file under a temporary name and all renamed at the end. A failure leaves nothing.
public struct EnrollmentPage {
    /// The profile's file name beside the page.
    public static let profileName = "enroll.mobileconfig"
    /// How long a challenge is valid by default: 90 days.
    public static let defaultValidity = TimeSpan(seconds: 90 * 86_400)

    public var pageURL: String
    public var organization: String?
    public var key: EnrollmentKey
    /// The identity the profile is signed with; nil writes it unsigned.
    public var identity: SigningIdentity?
    public var validFor = defaultValidity
    /// When the challenge is issued.
    public var now = Date()

    public init(pageURL: String, organization: String?, key: EnrollmentKey, identity: SigningIdentity?) {
        self.pageURL = pageURL
        self.organization = organization
        self.key = key
        self.identity = identity
    }

    /// What was written.
    public struct Result: Sendable {
        /// The files, in the folder.
        public var files: [String]
        public var profile: EnrollmentProfile
        /// When the profile's challenge expires: the receiver refuses replies to it after that.
        public var expires: Date
    }

    /// Makes the profile and the pages and writes them into `folder`.
    public func write(to folder: String) throws -> Result {
        let profile = try EnrollmentProfile(
            pageURL: pageURL, organization: organization, key: key, issued: now, validFor: TimeInterval(validFor.seconds))
        let mobileconfig = try profile.mobileconfig(signedBy: identity)
        let content = EnrollPage.Content(
            pageURL: profile.pageURL, profileName: Self.profileName, profileTitle: profile.displayName,
            host: EnrollmentProfile.host(ofPageURL: profile.pageURL), organization: profile.organization, signed: identity != nil)
        let files = try EnrollPage.files(content, templates: try TemplateSet()) + [(Self.profileName, Data(mobileconfig))]
        try Self.writeTogether(files, into: folder)
        return Result(
            files: files.map { (folder as NSString).appendingPathComponent($0.name) }, profile: profile,
            expires: now.addingTimeInterval(TimeInterval(validFor.seconds)))
    }

    /// Writes `files` into `folder` so that either all of them appear or none.
    static func writeTogether(_ files: [(name: String, data: Data)], into folder: String) throws {
        switch FileIO.kind(of: folder) {
        case .folder?:
            try FileIO.writeAtomically(together: files.map { ((folder as NSString).appendingPathComponent($0.name), $0.data) })
        case nil:
            let parent = FileIO.split(folder).folder
            try FileIO.createFolder(parent)
            let temporary = FileIO.temporaryPath(for: folder)
            guard mkdir(temporary, 0o777) == 0 else { throw Diagnostic.system("cannot be made", file: folder) }
            do {
                for (name, data) in files {
                    try FileIO.writeAtomically(data, to: (temporary as NSString).appendingPathComponent(name))
                }
                guard rename(temporary, folder) == 0 else { throw Diagnostic.system("cannot be written", file: folder) }
            } catch {
                try? FileManager.default.removeItem(atPath: temporary)
                throw error
            }
        case _?:
            throw Diagnostic.io("is a file, not a folder", file: folder)
        }
    }
}

import Foundation
import SystemSupport

/// The pages of a device enrollment (`devices enroll-page`): `index.html`, which an iPhone or iPad opens
/// to install the enrollment profile and a computer shows as a QR code of its own address, and
/// `thanks.html`, where the receiver sends the device afterwards; with their stylesheet and scripts.
///
/// As the install page, they hold no inline style or script, so they read the same under an artifact
/// server's Content-Security-Policy: the stylesheet beside them applies, and without the script the page
/// shows the button, the QR code and one message for every device. The thanks page shows the `name`,
/// `model` and `udid` of its query through `textContent`, never as HTML.
public enum EnrollPage {
    public static let pageName = "index.html"
    public static let thanksName = "thanks.html"
    public static let stylesheetName = "style.css"
    /// The page's device script: the install page's (`device-script`), which picks the note for the device.
    public static let scriptName = "enroll.js"
    public static let thanksScriptName = "thanks.js"

    /// What the pages say.
    public struct Content: Sendable {
        /// The page's own address (`--url`), for the QR code.
        public var pageURL: String
        /// The profile's file name beside the page.
        public var profileName: String
        /// The profile's title, as iOS shows it.
        public var profileTitle: String
        /// Where the device sends its identity, named in the steps.
        public var host: String
        public var organization: String?
        /// Whether the profile is signed (an unsigned one gets a note).
        public var signed: Bool

        public init(pageURL: String, profileName: String, profileTitle: String, host: String, organization: String?, signed: Bool) {
            self.pageURL = pageURL
            self.profileName = profileName
            self.profileTitle = profileTitle
            self.host = host
            self.organization = organization
            self.signed = signed
        }
    }

    /// The files to write beside the profile, by name.
    public static func files(_ content: Content, templates: TemplateSet) throws -> [(name: String, data: Data)] {
        let values: [String: TemplateValue] = [
            "pageURL": .text(content.pageURL), "profileURL": .text(URLEncoding.encodeComponent(content.profileName)),
            "profileName": .text(content.profileName), "profileTitle": .text(content.profileTitle), "host": .text(content.host),
            "organization": .text(content.organization ?? ""), "signed": .flag(content.signed),
            // A page address too long for any QR code leaves the code out.
            "qrSVG": .text((try? QRCode.svg(content.pageURL, label: "QR code for \(content.pageURL)")) ?? ""),
            "styleURL": .text(stylesheetName), "scriptURL": .text(scriptName), "thanksScriptURL": .text(thanksScriptName),
            "generatorVersion": .text(InstallPage.generatorVersion)
        ]
        let style = try templates.render("style", .record([:])) + templates.render("enroll-style", .record([:]))
        return [
            (pageName, Data(try templates.render("enroll", .record(values)).utf8)),
            (thanksName, Data(try templates.render("thanks", .record(values)).utf8)),
            (stylesheetName, Data(style.utf8)),
            (scriptName, Data(try templates.render("device-script", .record([:])).utf8)),
            (thanksScriptName, Data(try templates.render("thanks-script", .record([:])).utf8))
        ]
    }
}

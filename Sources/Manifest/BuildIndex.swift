import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// `index.html` for a folder of releases (each subfolder with the page and `build.json` that
/// `page` writes): grouped by environment, newest first, with a "latest" link per environment.
public enum BuildIndex {
    public struct Release: Sendable {
        public var folder: String
        public var info: BuildInfo
        public var date: String { info.date ?? "" }
        /// When the release was made, for ordering: `date` read as ISO 8601 (`Z` or a `±HH:MM`
        /// offset, so zones compare by the instant, not the text); a date that does not read
        /// (a hand-edited "yesterday") sorts as the oldest.
        var time: Double { BuildIndex.seconds(fromISO8601: date) ?? -.infinity }
        public var environment: String { info.environment.flatMap { $0.isEmpty ? nil : $0 } ?? "Builds" }

        public init(folder: String, info: BuildInfo) {
            self.folder = folder
            self.info = info
        }
    }

    /// `releases` newest first, as the index lists one environment's: by ``Release/date``, and
    /// releases made in the same second with the higher version first (1.4.0-100 before 1.4.0-99).
    public static func newestFirst(_ releases: [Release]) -> [Release] {
        releases.sorted { isNewer(date: $0.date, folder: $0.folder, than: $1.date, folder: $1.folder) }
    }

    /// Whether `a` sorts before `b` with runs of digits compared as numbers (`1.4.0-99` before
    /// `1.4.0-100`), everything else byte by byte.
    static func numericallyPrecedes(_ a: String, _ b: String) -> Bool {
        var left = Array(a.utf8)[...], right = Array(b.utf8)[...]
        func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
        while let x = left.first, let y = right.first {
            if isDigit(x) && isDigit(y) {
                let leftRun = left.prefix(while: isDigit), rightRun = right.prefix(while: isDigit)
                let leftNumber = leftRun.drop { $0 == 48 }, rightNumber = rightRun.drop { $0 == 48 }
                if leftNumber.count != rightNumber.count { return leftNumber.count < rightNumber.count }
                if !leftNumber.elementsEqual(rightNumber) { return leftNumber.lexicographicallyPrecedes(rightNumber) }
                left = left.dropFirst(leftRun.count)
                right = right.dropFirst(rightRun.count)
            } else {
                if x != y { return x < y }
                left = left.dropFirst()
                right = right.dropFirst()
            }
        }
        return left.count < right.count
    }

    /// The index's order of the releases of one environment: whether the release in `folder`, published
    /// at `date` (build.json's, ISO 8601), comes before the one in `otherFolder` published at `otherDate`.
    /// Newest first; a date that does not read counts as the oldest; releases made in the same second
    /// put the higher version first (`1.4.0-100` before `1.4.0-99`). `prune` keeps the newest by it.
    public static func isNewer(date: String, folder: String, than otherDate: String, folder otherFolder: String) -> Bool {
        let time = seconds(fromISO8601: date) ?? -.infinity, otherTime = seconds(fromISO8601: otherDate) ?? -.infinity
        return time != otherTime ? time > otherTime : numericallyPrecedes(otherFolder, folder)
    }

    /// Seconds since 2001 of an ISO 8601 time (`2026-05-31T23:30:00Z`, `2026-06-01T00:00:00+02:00`,
    /// the shorter forms plists take); nil for anything else.
    public static func seconds(fromISO8601 text: String) -> Double? {
        guard let t = text.firstIndex(of: "T") else { return PlistDate(iso8601: Substring(text))?.secondsSinceReferenceDate }
        var local = Substring(text)
        var offset = 0.0
        if let sign = text[t...].lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let zone = text[text.index(after: sign)...]
            let digits = zone.filter { $0 != ":" }
            guard digits.count == 4, digits.allSatisfy(\.isASCII), let hours = Int(digits.prefix(2)), let minutes = Int(digits.suffix(2)),
                hours < 24, minutes < 60
            else { return nil }
            offset = Double(hours * 3600 + minutes * 60) * (text[sign] == "+" ? 1 : -1)
            local = text[..<sign]
        } else if text.hasSuffix("Z") {
            local = text.dropLast()
        }
        return PlistDate(iso8601: Substring(local + "Z")).map { $0.secondsSinceReferenceDate - offset }
    }

    /// The index's stylesheet, written beside it (the `index-style` template).
    public static let stylesheetName = "index.css"

    /// Reads the releases under `root` and writes `root/index.html` and its stylesheet (the `index`
    /// command, and the last step of a release). Returns how many releases it lists and the unreadable ones.
    /// Releases whose folders are in `leavingOut` are not listed (`prune` writes the index before it
    /// removes them, so the index never lists a release that is going).
    public static func write(in root: String, title: String, leavingOut: Set<String> = []) throws -> (releases: Int, problems: [String]) {
        var (releases, problems) = try Self.releases(in: root)
        releases.removeAll { leavingOut.contains($0.folder) }
        let templates = try TemplateSet()
        let html = try Self.html(releases, title: title, templates: templates)
        let style = try templates.render("index-style", .record([:]))
        try FileIO.writeAtomically(
            together: [
                ((root as NSString).appendingPathComponent(stylesheetName), Data(style.utf8)),
                ((root as NSString).appendingPathComponent("index.html"), Data(html.utf8))
            ])
        return (releases.count, problems)
    }

    /// Every `build.json` up to three folders below `root`, unreadable ones reported as problems.
    public static func releases(in root: String) throws -> (releases: [Release], problems: [String]) {
        var releases: [Release] = []
        var problems: [String] = []
        guard let enumerator = FileManager.default.enumerator(atPath: root) else {
            throw Diagnostic.manifest("is not a folder", file: root)
        }
        while let relative = enumerator.nextObject() as? String {
            if enumerator.level > 3 { enumerator.skipDescendants(); continue }
            guard (relative as NSString).lastPathComponent == "build.json" else { continue }
            let folder = (relative as NSString).deletingLastPathComponent
            // Skip the `latest` links and hidden folders (releases still being assembled).
            if folder.split(separator: "/").contains(where: { $0 == "latest" || $0.hasPrefix(".") }) { continue }
            let path = (root as NSString).appendingPathComponent(relative)
            do {
                releases.append(Release(folder: folder, info: try BuildInfo(json: try FileIO.read(path, limit: InputLimits.buildInfo))))
            } catch let failure as Diagnostic where failure.code == .manifest(.buildInfo) {
                problems.append("\(path): \(failure.description)")
            } catch {
                problems.append("\(error)")
            }
        }
        return (releases, problems)
    }

    /// Renders the index of `releases` (folders relative to where `index.html` goes).
    public static func html(_ releases: [Release], title: String, templates: TemplateSet) throws -> String {
        try html(releases, title: title, templates: templates, styleURL: stylesheetName) { link($0, $1) }
    }

    /// Renders the index of `releases` with each link to a release's `file` (its page, its icon)
    /// written by `link(folder, file)` and the stylesheet at `styleURL`: absolute or presigned URLs
    /// for an index kept in object storage.
    public static func html(
        _ releases: [Release], title: String, templates: TemplateSet, styleURL: String,
        link: (_ folder: String, _ file: String) throws -> String
    ) throws -> String {
        let groups = Dictionary(grouping: releases, by: \.environment)
        let environments = groups.keys.sorted { a, b in
            (groups[a]!.map(\.time).max() ?? -.infinity, b) > (groups[b]!.map(\.time).max() ?? -.infinity, a)
        }
        let environmentValues: [TemplateValue] = try environments.map { name in
            let sorted = newestFirst(groups[name]!)
            let items: [TemplateValue] = try sorted.map { release in
                let app = release.info.appName ?? "App"
                return .record([
                    "page": .text(try link(release.folder, release.info.page ?? "index.html")),
                    "icon": .text(try release.info.icon.map { try link(release.folder, $0) } ?? ""),
                    "initial": .text(String(app.prefix(1)).uppercased()), "appName": .text(app),
                    "version": .text(release.info.version ?? "?"), "build": .text(release.info.build ?? "?"),
                    "date": .text(shown(release.date)), "built": .text(release.info.built.map(shown) ?? ""),
                    "branch": .text(release.info.branch ?? ""),
                    "signatureBroken": .flag(release.info.signatureIsBroken), "signer": .text(release.info.signer ?? ""),
                    "team": .text(release.info.teamNotInSigner ?? ""), "reach": .text(release.info.devices?.summary ?? "")
                ])
            }
            let newest = sorted[0]
            return .record([
                "name": .text(name), "id": .text(URLEncoding.encodeComponent(name)), "releases": .list(items),
                "latest": .record([
                    "latestPage": .text(try link(newest.folder, newest.info.page ?? "index.html")),
                    "version": .text(newest.info.version ?? "?"), "build": .text(newest.info.build ?? "?")
                ])
            ])
        }
        return try templates.render(
            "index",
            .record([
                "title": .text(title), "environments": .list(environmentValues),
                "releaseCount": .text(String(releases.count)), "single": .flag(releases.count == 1),
                "environmentCount": .text(String(environments.count)), "singleEnvironment": .flag(environments.count == 1),
                "generatorVersion": .text(InstallPage.generatorVersion), "styleURL": .text(styleURL)
            ]))
    }

    /// The `<title>` of an index page, its character references undone; nil when it has none.
    public static func title(inIndexHTML data: Data) -> String? {
        let html = String(decoding: data, as: UTF8.self)
        guard let open = html.range(of: "<title>"), let close = html.range(of: "</title>", range: open.upperBound..<html.endIndex) else {
            return nil
        }
        var title = String(html[open.upperBound..<close.lowerBound])
        for (reference, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
            title = title.replacingOccurrences(of: reference, with: character)
        }
        return title
    }

    /// An ISO 8601 time as the index shows it: `2026-01-31 10:00:00 UTC`.
    static func shown(_ iso: String) -> String {
        iso.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
    }

    /// `file` in `folder`, each folder name percent-encoded, as a link relative to the index.
    static func link(_ folder: String, _ file: String) -> String {
        (folder.split(separator: "/").map { URLEncoding.encodeComponent(String($0)) } + [file]).joined(separator: "/")
    }
}

import CodeSign
import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// When a build was made, as the build itself says: an `.xcarchive`'s `CreationDate`, else the time its
/// app was signed (the signingTime of its executable's CMS signature). `release` reads it from its input
/// before re-signing, so the page, the index and `build.json` show when the build was made beside when
/// it was published.
public struct BuildTime: Sendable, Equatable {
    public var date: Date
    /// What says so, as the page shows it: `its archive's date`, `its signing time`.
    public var source: String

    public init(date: Date, source: String) {
        self.date = date
        self.source = source
    }

    /// The build time of the `.ipa`, `.app` or `.xcarchive` at `path`; nil when it has neither (an
    /// unsigned or ad-hoc app outside an archive) or they cannot be read (with `limits`).
    public static func of(_ path: String, limits: ReaderLimits = .standard) -> BuildTime? {
        if FileIO.kind(of: path) == .folder {
            let bundle = IPAPackager.bundlePath(path)
            if bundle.hasSuffix(".xcarchive"),
                case .date(let created)? = (try? PropertyList(contentsOf: bundle + "/Info.plist", limits: limits.plist))?.value[
                    "CreationDate"]
            {
                return BuildTime(date: created.date, source: "its archive's date")
            }
            guard let app = try? IPAPackager.locateApp(path).app,
                case .signature(let signature) = AppExecutableSignature.of(app: app, limits: limits.plist)
            else { return nil }
            return AppExecutableSignature.signingTime(signature).map { BuildTime(date: $0, source: "its signing time") }
        }
        guard let app = try? AppPackage.open(path, limits: limits).app, let name = app.executableName, let bytes = try? app.read(name),
            let signature = try? MachOFile(data: bytes).slices.first?.embeddedSignature()
        else { return nil }
        return AppExecutableSignature.signingTime(signature).map { BuildTime(date: $0, source: "its signing time") }
    }
}

import Foundation
import IPAKit
import SystemSupport

extension ReleasePipeline {
    /// The `<version>-<build>` folder the release will be published as, worked out before anything is
    /// copied, so a release already published is refused at once: the environment's
    /// `CFBundleShortVersionString`, else the build's; the build number asked for, else the environment's
    /// `CFBundleVersion`, else the build's (as the steps that set them do). A bad build number is refused
    /// here, named as what gave it. Nil when the build cannot be opened (the steps that read it say why)
    /// or a value would not name a folder (checked again once the build is packaged).
    func expectedReleaseName(environment: ResolvedEnvironment) throws -> String? {
        let requested = try buildNumberRequest.flatMap(checkedBuildNumber)
        // Its versions are all that is read: a folder is listed by kinds, not stat'ed file by file.
        guard let app = try? AppPackage.open(options.input, limits: options.limits, folderDetail: .kinds).app else { return nil }
        let version = environment.info["CFBundleShortVersionString"]?.stringValue ?? app.shortVersion ?? "0"
        let build = requested ?? environment.info["CFBundleVersion"]?.stringValue ?? app.buildVersion ?? "0"
        for value in [version, build] {
            guard (try? Self.checkFolderName(value, key: "", input: options.input)) != nil else { return nil }
        }
        return "\(version)-\(build)"
    }
}

/// The two version numbers an app carries, and the names they go by.
public enum VersionField: String, CaseIterable, Sendable {
    /// The build number: `CFBundleVersion`, `CURRENT_PROJECT_VERSION`.
    case build
    /// The marketing version: `CFBundleShortVersionString`, `MARKETING_VERSION`.
    case marketing

    public var infoKey: String { self == .build ? "CFBundleVersion" : "CFBundleShortVersionString" }
    public var buildSetting: String { self == .build ? "CURRENT_PROJECT_VERSION" : "MARKETING_VERSION" }
    public var label: String { self == .build ? "build number" : "marketing version" }
}

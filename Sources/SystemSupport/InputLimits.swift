/// The most bytes adhocbuild reads of each kind of small input before it refuses it with one line;
/// far above any real file of the kind, and far below what would exhaust memory (an endless
/// input such as `/dev/zero` or `yes |` ends at its limit). Plists and ipas have limits of their own
/// that the environment can raise (`ADHOCBUILD_MAX_PLIST_SIZE`, `ADHOCBUILD_MAX_IPA_SIZE`).
public enum InputLimits {
    /// Release notes (`--notes`): 1 MiB of text.
    public static let releaseNotes = 1 << 20
    /// An icon or other image given as a file (`--icon`): 64 MiB.
    public static let image = 64 << 20
    /// A provisioning profile (`--profile`, `embedded.mobileprovision`): 16 MiB.
    public static let provisioningProfile = 16 << 20
    /// A release's `build.json`: 16 MiB.
    public static let buildInfo = 16 << 20
    /// A bundle's Info.plist read only to find its executable's name: 16 MiB.
    public static let bundleInfoPlist = 16 << 20
}

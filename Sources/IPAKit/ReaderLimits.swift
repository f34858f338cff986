import PlistKit

/// The limits on everything read from untrusted input, plists and archives, as one value: the
/// command-line tool builds it once from its environment and passes it to each read, so two reads
/// in one process may use different limits.
public struct ReaderLimits: Sendable, Equatable {
    public var plist: PlistLimits
    public var archive: ZipArchiveReader.Limits

    public init(plist: PlistLimits = PlistLimits(), archive: ZipArchiveReader.Limits = ZipArchiveReader.Limits()) {
        self.plist = plist
        self.archive = archive
    }

    /// The built-in limits, which reads use when given none.
    public static let standard = ReaderLimits()
}

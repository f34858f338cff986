/// The `CARHEADER` block of a compiled asset catalog: which CoreUI wrote it and how many
/// renditions it claims. Its integers are little-endian, unlike the BOM container around it.
public struct CARHeader: Sendable, Equatable {
    /// CoreUI's version number (374 for Xcode 7.3, 691 for Xcode 12.5).
    public var coreUIVersion: Int
    /// The storage format version.
    public var storageVersion: Int
    /// The number of renditions the header claims (the `RENDITIONS` tree is what is listed).
    public var renditionCount: Int
    /// CoreUI's version line, e.g. `@(#)PROGRAM:CoreUI  PROJECT:CoreUI-691.2`.
    public var mainVersion: String
    /// The tool that wrote the catalog, e.g. `Xcode 12.5 (12E262) via IBCocoaTouchImageCatalogTool`.
    public var versionString: String
    /// The colour space the catalog's renditions default to.
    public var colorSpaceID: Int

    init(_ view: ByteView) throws {
        guard view.hasTag(0, "RATC") else { throw view.failure("CARHEADER does not start with 'RATC'") }
        coreUIVersion = try view.u32le(4, "CoreUI version")
        storageVersion = try view.u32le(8, "storage version")
        renditionCount = try view.u32le(16, "rendition count")
        mainVersion = try view.string(20, 128, "main version string")
        versionString = try view.string(148, 256, "version string")
        // uuid (16 bytes), associated checksum, schema version, then the colour space.
        colorSpaceID = view.count >= 432 ? try view.u32le(428, "colour space") : 0
    }
}

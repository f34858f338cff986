/// An image as 8-bit red, green, blue and alpha per pixel, alpha straight (not premultiplied), rows
/// top to bottom with no padding: what a rendition decodes to, and (IPAKit's PNG codec) what a PNG
/// does.
public struct RGBAImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// `width × height × 4` bytes.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}

import AssetCatalog
import Foundation
import FuzzDriver
import IPAKit

runFuzzer { data in
    let data = data
    _ = RGBAImage.pngDimensions(of: data)
    if let image = try? RGBAImage(pngData: data), image.width * image.height <= 1 << 20 {
        precondition((try? RGBAImage(pngData: image.pngData())) == image, "PNG round trip changed the pixels")
    }
}

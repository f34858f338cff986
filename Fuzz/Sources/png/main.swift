import Foundation
import FuzzDriver
import IPAKit

runFuzzer { data in
    let data = data
    _ = PNGImage.dimensions(of: data)
    if let image = try? PNGImage(data: data), image.width * image.height <= 1 << 20 {
        precondition((try? PNGImage(data: image.pngData())) == image, "PNG round trip changed the pixels")
    }
}

import AssetCatalog
import IPAKit

/// Resizes RGBA images for the manifest's 57×57 and 512×512 icons.
///
/// Works in premultiplied alpha (so transparent edges do not bleed dark fringes): shrinking
/// averages every source pixel a target pixel covers, with fractional coverage at its edges
/// (a box filter); enlarging interpolates bilinearly.
public enum ImageResizer {
    public static func resize(_ image: RGBAImage, to size: Int) -> RGBAImage {
        resize(image, width: size, height: size)
    }

    public static func resize(_ image: RGBAImage, width: Int, height: Int) -> RGBAImage {
        guard image.width != width || image.height != height else { return image }
        let premultiplied = premultiply(image)
        let result: [Double]
        if width <= image.width && height <= image.height {
            result = boxDownsample(premultiplied, image.width, image.height, width, height)
        } else {
            result = bilinear(premultiplied, image.width, image.height, width, height)
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for pixel in 0..<(width * height) {
            let alpha = result[pixel * 4 + 3]
            for channel in 0..<3 {
                let value = alpha > 0 ? result[pixel * 4 + channel] / alpha * 255 : 0
                pixels[pixel * 4 + channel] = UInt8(max(0, min(255, value.rounded())))
            }
            pixels[pixel * 4 + 3] = UInt8(max(0, min(255, alpha.rounded())))
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    static func premultiply(_ image: RGBAImage) -> [Double] {
        var out = [Double](repeating: 0, count: image.pixels.count)
        for pixel in 0..<(image.width * image.height) {
            let alpha = Double(image.pixels[pixel * 4 + 3])
            for channel in 0..<3 { out[pixel * 4 + channel] = Double(image.pixels[pixel * 4 + channel]) * alpha / 255 }
            out[pixel * 4 + 3] = alpha
        }
        return out
    }

    static func boxDownsample(_ source: [Double], _ sw: Int, _ sh: Int, _ tw: Int, _ th: Int) -> [Double] {
        var out = [Double](repeating: 0, count: tw * th * 4)
        let scaleX = Double(sw) / Double(tw), scaleY = Double(sh) / Double(th)
        for ty in 0..<th {
            let y0 = Double(ty) * scaleY, y1 = y0 + scaleY
            for tx in 0..<tw {
                let x0 = Double(tx) * scaleX, x1 = x0 + scaleX
                var sum = [0.0, 0.0, 0.0, 0.0]
                var area = 0.0
                var sy = Int(y0)
                while Double(sy) < y1 && sy < sh {
                    let coverY = min(y1, Double(sy + 1)) - max(y0, Double(sy))
                    var sx = Int(x0)
                    while Double(sx) < x1 && sx < sw {
                        let weight = coverY * (min(x1, Double(sx + 1)) - max(x0, Double(sx)))
                        let index = (sy * sw + sx) * 4
                        for channel in 0..<4 { sum[channel] += source[index + channel] * weight }
                        area += weight
                        sx += 1
                    }
                    sy += 1
                }
                for channel in 0..<4 { out[(ty * tw + tx) * 4 + channel] = area > 0 ? sum[channel] / area : 0 }
            }
        }
        return out
    }

    static func bilinear(_ source: [Double], _ sw: Int, _ sh: Int, _ tw: Int, _ th: Int) -> [Double] {
        var out = [Double](repeating: 0, count: tw * th * 4)
        for ty in 0..<th {
            let fy = max(0, min(Double(sh - 1), (Double(ty) + 0.5) * Double(sh) / Double(th) - 0.5))
            let y0 = Int(fy), y1 = min(y0 + 1, sh - 1), wy = fy - Double(y0)
            for tx in 0..<tw {
                let fx = max(0, min(Double(sw - 1), (Double(tx) + 0.5) * Double(sw) / Double(tw) - 0.5))
                let x0 = Int(fx), x1 = min(x0 + 1, sw - 1), wx = fx - Double(x0)
                for channel in 0..<4 {
                    let top = source[(y0 * sw + x0) * 4 + channel] * (1 - wx) + source[(y0 * sw + x1) * 4 + channel] * wx
                    let bottom = source[(y1 * sw + x0) * 4 + channel] * (1 - wx) + source[(y1 * sw + x1) * 4 + channel] * wx
                    out[(ty * tw + tx) * 4 + channel] = top * (1 - wy) + bottom * wy
                }
            }
        }
        return out
    }
}

import CQRencode
import Foundation
import SystemSupport

/// A QR code (through libqrencode) drawn as inline SVG, so a tester on a desktop can scan the
/// page's address with a phone; no image files, no network.
public enum QRCode {
    /// The modules of `text`'s QR code (error correction M), row by row; true is dark.
    public static func modules(_ text: String) throws -> [[Bool]] {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else {
            throw Diagnostic.manifest(.qrCode, "cannot make a QR code of \(text.utf8.count) bytes")
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        return (0..<width).map { row in
            (0..<width).map { column in code.pointee.data[row * width + column] & 1 != 0 }
        }
    }

    /// An SVG of `text`'s QR code with a four-module quiet zone, one path for all dark modules.
    public static func svg(_ text: String, label: String) throws -> String {
        let grid = try modules(text)
        let size = grid.count + 8
        var path = ""
        for (row, modules) in grid.enumerated() {
            var column = 0
            while column < modules.count {
                guard modules[column] else { column += 1; continue }
                var run = 1
                while column + run < modules.count && modules[column + run] { run += 1 }
                path += "M\(column + 4) \(row + 4)h\(run)v1h-\(run)z"
                column += run
            }
        }
        return
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(size) \(size)\" role=\"img\" aria-label=\"\(HTML.escape(label))\" "
            + "shape-rendering=\"crispEdges\"><rect width=\"\(size)\" height=\"\(size)\" fill=\"#fff\"/>"
            + "<path fill=\"#000\" d=\"\(path)\"/></svg>"
    }
}

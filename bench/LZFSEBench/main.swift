// Decodes LZFSE streams with adhocbuild's decoder, as `make bench` measures it beside Apple's C decoder.
// Usage: lzfse-decode-bench ROUNDS FILE...  prints, per file, "FILE DECODED_BYTES BEST_SECONDS" (the best of ROUNDS decodes)
//        lzfse-decode-bench --decode FILE OUT  writes the decoded bytes of FILE to OUT
import Compression
import Foundation

let arguments = CommandLine.arguments
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("lzfse-decode-bench: \(message)\n".utf8))
    exit(1)
}
if arguments.count == 4 && arguments[1] == "--decode" {
    guard let input = FileManager.default.contents(atPath: arguments[2]) else { fail("cannot read \(arguments[2])") }
    do {
        let output = try LZFSEDecoder.decode(input, maxOutput: 1 << 32)
        try Data(output).write(to: URL(fileURLWithPath: arguments[3]))
    } catch { fail("\(arguments[2]): \(error)") }
    exit(0)
}
guard arguments.count >= 3, let rounds = Int(arguments[1]), rounds > 0 else {
    fail("usage: lzfse-decode-bench ROUNDS FILE... | lzfse-decode-bench --decode FILE OUT")
}
for path in arguments.dropFirst(2) {
    guard let input = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    let bytes = [UInt8](input)
    var best = Double.infinity
    var size = 0
    for _ in 0..<rounds {
        let start = DispatchTime.now().uptimeNanoseconds
        do { size = try LZFSEDecoder.decode(bytes, maxOutput: 1 << 32).count } catch { fail("\(path): \(error)") }
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    print("\(path) \(size) \(best)")
}

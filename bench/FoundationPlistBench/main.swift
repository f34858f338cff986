// Converts a plist with Foundation's PropertyListSerialization, as a peer for `make bench`.
// Usage: foundation-plist-bench INPUT OUTPUT xml|binary
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: foundation-plist-bench INPUT OUTPUT xml|binary\n".utf8))
    exit(2)
}
do {
    let input = try Data(contentsOf: URL(fileURLWithPath: arguments[1]))
    let value = try PropertyListSerialization.propertyList(from: input, options: [], format: nil)
    let format: PropertyListSerialization.PropertyListFormat = arguments[3] == "xml" ? .xml : .binary
    let output = try PropertyListSerialization.data(fromPropertyList: value, format: format, options: 0)
    try output.write(to: URL(fileURLWithPath: arguments[2]))
} catch {
    FileHandle.standardError.write(Data("foundation-plist-bench: \(error)\n".utf8))
    exit(1)
}

import Foundation
import FuzzDriver
import PlistKit

runFuzzer { data in
    let data = data
    if let value = try? BinaryPlistReader(limits: PlistLimits(maxDepth: 512, maxValues: 1_000_000)).read(data) {
        // What reads must write and read back equal.
        let again = try? BinaryPlistReader().read(try! BinaryPlistWriter().write(value))
        precondition(again == value, "binary round trip changed the value")
    }
    _ = try? BinaryPlistReader(limits: PlistLimits(maxDepth: 512, maxValues: 1_000_000)).read(data, into: PlistTreeBuilder())
}

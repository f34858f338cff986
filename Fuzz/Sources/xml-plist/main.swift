import Foundation
import FuzzDriver
import PlistKit

runFuzzer { data in
    let data = data
    if let value = try? XMLPlistReader().read(data), let xml = try? XMLPlistWriter().write(value) {
        precondition((try? XMLPlistReader().read(xml)) == value, "XML round trip changed the value")
    }
}

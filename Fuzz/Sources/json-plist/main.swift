import Foundation
import FuzzDriver
import PlistKit

runFuzzer { data in
    let data = data
    _ = try? PropertyList(data: data)
    if let value = try? JSONPlistReader().read(data), let json = try? JSONPlistWriter().write(value) {
        precondition((try? JSONPlistReader().read(json)) == value, "JSON round trip changed the value")
    }
}

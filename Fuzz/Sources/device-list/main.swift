import AdhocBuildKit
import Foundation
import FuzzDriver
import PlistKit

// The device lists adhocbuild reads from others (`devices import`: the portal's tab-separated file,
// Xcode's .deviceids, JSON, another devices.plist) and its own store. Every entry import accepts
// makes a device record, and a store that reads is written back as one that reads the same.
runFuzzer { data in
    if let entries = try? DeviceImport.read(data, file: "fuzz") {
        for entry in entries {
            precondition((try? entry.record(now: Date(), addedBy: "fuzz")) != nil, "an accepted entry is not a device: \(entry)")
        }
    }
    if let value = try? PropertyList(data: data).value, let list = try? DeviceList(plist: value, file: "fuzz") {
        let again = try? DeviceList(plist: list.plistValue, file: "fuzz")
        precondition(again == list, "the store does not read back as it was written")
    }
}

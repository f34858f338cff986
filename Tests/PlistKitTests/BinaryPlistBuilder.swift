import Foundation

/// Assembles binary plists object by object, so tests can write files no correct writer would.
struct BinaryPlistBuilder {
    var objects: [[UInt8]] = []
    var offsetSize = 1
    var refSize = 1
    var top = 0
    /// Offsets to use instead of the real ones, by object index.
    var offsetOverrides: [Int: Int] = [:]
    var objectCountOverride: UInt64? = nil
    var tableOffsetOverride: UInt64? = nil
    var bytesBeforeTrailer: [UInt8] = []

    @discardableResult
    mutating func add(_ bytes: [UInt8]) -> Int {
        objects.append(bytes)
        return objects.count - 1
    }

    static func ascii(_ text: String) -> [UInt8] {
        precondition(text.utf8.count < 15)
        return [0x50 | UInt8(text.utf8.count)] + Array(text.utf8)
    }

    static func array(_ refs: [Int]) -> [UInt8] { [0xA0 | UInt8(refs.count)] + refs.map { UInt8($0) } }
    static func dict(_ keys: [Int], _ values: [Int]) -> [UInt8] {
        [0xD0 | UInt8(keys.count)] + keys.map { UInt8($0) } + values.map { UInt8($0) }
    }

    func build() -> Data {
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(out.count)
            out += object
        }
        let tableOffset = out.count
        for (index, offset) in offsets.enumerated() {
            let value = UInt64(offsetOverrides[index] ?? offset)
            for shift in stride(from: (offsetSize - 1) * 8, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }
        out += bytesBeforeTrailer
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        func be64(_ value: UInt64) {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        be64(objectCountOverride ?? UInt64(objects.count))
        be64(UInt64(top))
        be64(tableOffsetOverride ?? UInt64(tableOffset))
        return Data(out)
    }
}

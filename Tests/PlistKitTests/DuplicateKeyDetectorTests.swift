import Foundation
import Testing

@testable import PlistKit

/// The duplicate-key check of the XML and binary readers, on dictionaries large enough to be checked
/// through a hash table (``KeyPositionTable``), which grows as keys arrive.
@Suite struct DuplicateKeyDetectorTests {
    static func insert(_ detector: inout DuplicateKeyDetector, _ key: String) -> Bool {
        var key = key
        return key.withUTF8 { detector.insert(UnsafeRawBufferPointer($0)) }
    }

    @Test func findsARepeatedKeyAmongThousands() {
        var detector = DuplicateKeyDetector()
        detector.beginDictionary()
        let keys = (0..<5000).map { "Assets/Group\($0 % 7)/res\($0).png" }
        for key in keys { #expect(Self.insert(&detector, key)) }
        for key in [keys[0], keys[17], keys[2500], keys[4999]] { #expect(!Self.insert(&detector, key), "\(key)") }
        #expect(Self.insert(&detector, "Assets/Group0/res5000.png"))
    }

    @Test func nestedDictionariesKeepTheirOwnKeys() {
        var detector = DuplicateKeyDetector()
        detector.beginDictionary()
        for index in 0..<100 { #expect(Self.insert(&detector, "outer\(index)")) }
        detector.beginDictionary()
        // The outer dictionary's keys are not this one's.
        for index in 0..<100 { #expect(Self.insert(&detector, "outer\(index)")) }
        #expect(!Self.insert(&detector, "outer42"))
        detector.endDictionary()
        #expect(!Self.insert(&detector, "outer99"))
        #expect(Self.insert(&detector, "inner"))
    }

    @Test func tableFindsEveryPositionWhateverTheHashes() {
        // Hashes that all collide, and hashes that differ only in their low bits.
        for hashOf in [{ (_: Int) -> UInt64 in 42 }, { (position: Int) -> UInt64 in UInt64(position) }] {
            var table = KeyPositionTable(expected: 4)
            for position in 0..<300 { table.insert(position, hash: hashOf(position), hashOf: hashOf) }
            for position in 0..<300 {
                #expect(table.contains(hash: hashOf(position)) { $0 == position })
            }
            #expect(!table.contains(hash: hashOf(7)) { $0 == 300 })
        }
    }
}

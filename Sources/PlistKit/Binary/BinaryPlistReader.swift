import Foundation
import SystemSupport

/// Reads Apple's binary property lists (`bplist00`) strictly.
///
/// Every offset, reference and count is checked against the file before it is used, so a
/// hostile file gives an error naming the object and byte offset, never a crash, a hang or
/// a huge allocation: cycles, references out of range, objects that overlap, counts larger
/// than the file, bytes between the offset table and the trailer, nesting deeper than the
/// limit, and shared objects that expand past the value limit are all errors.
public struct BinaryPlistReader {
    public var limits: PlistLimits
    /// Whether the streaming reader clears each dictionary's keys up front by object number
    /// (`BinaryPlistKeyIndex`) before checking them one by one; off only in tests that pin both
    /// ways to the same output and errors.
    var checksKeysUpFront = true

    public init(limits: PlistLimits = .default) { self.limits = limits }

    /// Decodes the whole value; objects shared by several containers are decoded once.
    public func read(_ data: Data) throws -> PlistValue {
        try data.withUnsafeBytes { raw in
            var decoder = BinaryPlistValueDecoder(table: try BinaryPlistObjectTable(bytes: raw), limits: limits)
            let root = try decoder.decode(decoder.table.topObject, depth: 0)
            try decoder.overlaps.finish()
            return root
        }
    }

    /// Walks the file and sends each value to `sink` without building the value; shared
    /// objects are emitted once per place they appear.
    public func read(_ data: Data, into sink: PlistEventSink) throws {
        try read(data, into: sink, splitter: nil)
    }

    /// Walks the file into `writer` with large containers near the top written on `threads`
    /// threads (`BinaryPlistXMLSplitter`); returns how many containers were split. On an error
    /// the output is to be dropped and the file converted again by `read(_:into:)`, which
    /// reports the first problem in document order.
    /// `chunkByteLimit` replaces the splitter's bound on a chunk's memory (tests).
    func read(_ data: Data, intoXML writer: XMLPlistStreamWriter, threads: Int, chunkByteLimit: Int? = nil) throws -> Int {
        let splitter = BinaryPlistXMLSplitter(writer: writer, threads: threads, inputSize: data.count)
        if let chunkByteLimit { splitter.chunkByteLimit = chunkByteLimit }
        try read(data, into: writer, splitter: splitter)
        return splitter.splits
    }

    private func read(_ data: Data, into sink: PlistEventSink, splitter: BinaryPlistXMLSplitter?) throws {
        try data.withUnsafeBytes { raw in
            let table = try BinaryPlistObjectTable(bytes: raw)
            // Counted before the first event, so a writer never starts on output it could not finish.
            var expansion = BinaryPlistExpansionCheck(table: table, limits: limits)
            try expansion.check()
            var walker = BinaryPlistEventWalker(table: table, limits: limits, sink: sink)
            walker.checksKeysUpFront = checksKeysUpFront
            walker.splitter = splitter
            defer { walker.deallocate() }
            try walker.walk(walker.table.topObject, depth: 0)
            try walker.overlaps.finish()
        }
    }
}

struct BinaryPlistValueDecoder {
    let table: BinaryPlistObjectTable
    let limits: PlistLimits
    var cache: [PlistValue?]
    /// How many values each decoded object expands to, to bound shared-object blow-up.
    var expandedCounts: [Int]
    var inProgress: [Bool]
    var overlaps: BinaryPlistOverlapCheck

    init(table: BinaryPlistObjectTable, limits: PlistLimits) {
        self.table = table
        self.limits = limits
        cache = Array(repeating: nil, count: table.objectCount)
        expandedCounts = Array(repeating: 0, count: table.objectCount)
        inProgress = Array(repeating: false, count: table.objectCount)
        overlaps = BinaryPlistOverlapCheck(table: table)
    }

    mutating func decode(_ object: Int, depth: Int) throws -> PlistValue {
        if let cached = cache[object] { return cached }
        let (decoded, start, end) = try table.object(object)
        if inProgress[object] { throw table.malformed("object \(object) contains itself (a reference cycle)", start) }
        var expanded = 1
        let value: PlistValue
        switch decoded {
        case .bool(let bool): value = .bool(bool)
        case .integer(let integer): value = .integer(integer)
        case .real(let real): value = .real(real)
        case .date(let date): value = .date(date)
        case .uid(let uid): value = .uid(uid)
        case .data(let range): value = .data(Data(table.bytes[range]))
        case .ascii, .utf16: value = .string(try table.string(decoded, number: object)!)
        case .array(let refs, let count), .dictionary(let refs, let count):
            guard depth < limits.maxDepth else {
                throw Diagnostic.plist(.limitExceeded, "nesting deeper than \(limits.maxDepth) levels", at: .byte(start))
            }
            inProgress[object] = true
            defer { inProgress[object] = false }
            func child(_ index: Int) throws -> PlistValue {
                let ref = try table.reference(at: refs + index * table.refSize, in: object)
                let value = try decode(ref, depth: depth + 1)
                expanded += expandedCounts[ref]
                if expanded > limits.maxValues {
                    throw Diagnostic.plist(
                        .limitExceeded, "the plist expands to more than \(limits.maxValues) values",
                        at: .byte(start))
                }
                return value
            }
            if case .dictionary = decoded {
                var dict = PlistDictionary()
                for index in 0..<count {
                    guard case .string(let key) = try child(index) else {
                        let kind = try decode(try table.reference(at: refs + index * table.refSize, in: object), depth: depth + 1)
                        throw table.malformed(
                            "dictionary object \(object) has \(kind.kindWithArticle) key; keys must be strings",
                            refs + index * table.refSize)
                    }
                    if dict.contains(key) {
                        throw table.malformed("dictionary object \(object) has the key '\(key)' twice", refs + index * table.refSize)
                    }
                    dict.append(key, try child(count + index))
                }
                value = .dictionary(dict)
            } else {
                var items: [PlistValue] = []
                items.reserveCapacity(count)
                for index in 0..<count { items.append(try child(index)) }
                value = .array(items)
            }
        }
        cache[object] = value
        expandedCounts[object] = expanded
        try overlaps.record(object, start: start, end: end, table: table)
        return value
    }
}

struct BinaryPlistEventWalker {
    let table: BinaryPlistObjectTable
    let limits: PlistLimits
    var sink: PlistEventSink
    /// Writes large containers near the top on several threads (binary to XML only).
    var splitter: BinaryPlistXMLSplitter? = nil
    /// One byte per object: `inProgress` while it is an open container (cycle check), `checked`
    /// once its extent was checked. Raw storage, so setting a flag is a store (an array here
    /// would be checked for uniqueness on every write, a class retained); `read` frees it.
    let marks: UnsafeMutablePointer<UInt8>
    static let inProgress: UInt8 = 1
    static let checked: UInt8 = 2
    var overlaps: BinaryPlistOverlapCheck
    var valueCount = 0
    var keys = DuplicateKeyDetector()
    /// Checks a dictionary's keys up front by object number; `keys` is for those it cannot clear.
    var keyIndex: BinaryPlistKeyIndex
    var checksKeysUpFront = true
    let scratch = TextScratch()

    /// Reused storage for strings converted from UTF-16.
    final class TextScratch { var utf8: [UInt8] = [] }

    init(table: BinaryPlistObjectTable, limits: PlistLimits, sink: PlistEventSink) {
        self.table = table
        self.limits = limits
        self.sink = sink
        marks = ZeroedMemory.allocate(UInt8.self, count: table.objectCount)
        overlaps = BinaryPlistOverlapCheck(table: table)
        keyIndex = BinaryPlistKeyIndex(objectCount: table.objectCount)
    }

    /// Frees the marks and the key index (once, when the walk is over).
    func deallocate() {
        ZeroedMemory.release(marks)
        keyIndex.deallocate()
    }

    /// Calls `body` with the UTF-8 bytes of a string object; nil for any other object.
    static func withText<T>(
        _ object: BinaryPlistObjectTable.Object, number: Int, table: BinaryPlistObjectTable,
        scratch: TextScratch, _ body: (UnsafeRawBufferPointer) throws -> T
    ) throws -> T? {
        switch object {
        case .ascii(let range): return try body(UnsafeRawBufferPointer(rebasing: table.bytes[range]))
        case .utf16(let range):
            scratch.utf8.removeAll(keepingCapacity: true)
            try table.appendUTF8(fromUTF16: range, object: number, to: &scratch.utf8)
            return try scratch.utf8.withUnsafeBytes(body)
        default: return nil
        }
    }

    mutating func walk(_ object: Int, depth: Int) throws {
        let (decoded, start, end) = try table.object(object)
        if mark(Self.checked, object) {
            try overlaps.record(object, start: start, end: end, table: table)
        }
        valueCount += 1
        if valueCount > limits.maxValues {
            throw Diagnostic.plist(.limitExceeded, "the plist expands to more than \(limits.maxValues) values", at: .byte(start))
        }
        switch decoded {
        case .bool(let bool): try sink.bool(bool)
        case .integer(let integer): try sink.integer(integer)
        case .real(let real): try sink.real(real)
        case .date(let date): try sink.date(date)
        case .uid(let uid): try sink.uid(uid)
        case .data(let range): try sink.data(UnsafeRawBufferPointer(rebasing: table.bytes[range]))
        case .ascii, .utf16:
            _ = try Self.withText(decoded, number: object, table: table, scratch: scratch) { try sink.string($0) }
        case .array(let refs, let count), .dictionary(let refs, let count):
            guard depth < limits.maxDepth else {
                throw Diagnostic.plist(.limitExceeded, "nesting deeper than \(limits.maxDepth) levels", at: .byte(start))
            }
            guard mark(Self.inProgress, object) else {
                throw table.malformed("object \(object) contains itself (a reference cycle)", start)
            }
            defer { marks[object] &= ~Self.inProgress }
            if case .dictionary = decoded, checksKeysUpFront, keyIndex.keysAreDistinctStrings(refs: refs, count: count, in: table) {
                try sink.beginDictionary()
                if let splitter,
                    try splitter.split(
                        container: object, refs: refs, count: count, isDictionary: true, depth: depth, walker: &self)
                {
                    return try sink.endContainer()
                }
                try walkPairs(of: object, refs: refs, count: count, in: 0..<count, depth: depth)
            } else if case .dictionary = decoded {
                // Some key is not a string, does not decode or repeats: key by key, so the first
                // problem in document order is the one reported.
                try sink.beginDictionary()
                keys.beginDictionary()
                for index in 0..<count {
                    let position = refs + index * table.refSize
                    let keyNumber = try table.reference(at: position, in: object)
                    let (key, keyStart, keyEnd) = try table.object(keyNumber)
                    if mark(Self.checked, keyNumber) {
                        try overlaps.record(keyNumber, start: keyStart, end: keyEnd, table: table)
                    }
                    var duplicate: String? = nil
                    let isString = try Self.withText(key, number: keyNumber, table: table, scratch: scratch) { text -> Bool in
                        if !keys.insert(text) { duplicate = String(decoding: text, as: UTF8.self) } else { try sink.key(text) }
                        return true
                    }
                    guard isString != nil else {
                        throw table.malformed(
                            "dictionary object \(object) has \(PlistValue.withArticle(Self.kindName(key))) key; keys must be strings",
                            position)
                    }
                    if let duplicate {
                        throw table.malformed("dictionary object \(object) has the key '\(duplicate)' twice", position)
                    }
                    try walk(try table.reference(at: refs + (count + index) * table.refSize, in: object), depth: depth + 1)
                }
                keys.endDictionary()
            } else {
                try sink.beginArray()
                if let splitter,
                    try splitter.split(
                        container: object, refs: refs, count: count, isDictionary: false, depth: depth, walker: &self)
                {
                    return try sink.endContainer()
                }
                try walkItems(of: object, refs: refs, in: 0..<count, depth: depth)
            }
            try sink.endContainer()
        }
    }

    /// Emits the pairs `range` of dictionary `object` (`count` pairs, references at `refs`), whose
    /// keys `keyIndex` has cleared as distinct strings; the values are at `depth + 1`.
    mutating func walkPairs(of object: Int, refs: Int, count: Int, in range: Range<Int>, depth: Int) throws {
        for index in range {
            let keyNumber = try table.reference(at: refs + index * table.refSize, in: object)
            let (key, keyStart, keyEnd) = try table.object(keyNumber)
            if mark(Self.checked, keyNumber) {
                try overlaps.record(keyNumber, start: keyStart, end: keyEnd, table: table)
            }
            if case .ascii(let range) = key {
                try sink.key(UnsafeRawBufferPointer(rebasing: table.bytes[range]))  // no closure: most keys are ASCII
            } else {
                _ = try Self.withText(key, number: keyNumber, table: table, scratch: scratch) { try sink.key($0) }
            }
            try walk(try table.reference(at: refs + (count + index) * table.refSize, in: object), depth: depth + 1)
        }
    }

    /// Emits the items `range` of array `object` (references at `refs`) at `depth + 1`.
    mutating func walkItems(of object: Int, refs: Int, in range: Range<Int>, depth: Int) throws {
        for index in range {
            try walk(try table.reference(at: refs + index * table.refSize, in: object), depth: depth + 1)
        }
    }

    /// Sets `flag` for `object`; false when it was already set.
    @inline(__always) func mark(_ flag: UInt8, _ object: Int) -> Bool {
        guard marks[object] & flag == 0 else { return false }
        marks[object] |= flag
        return true
    }

    static func kindName(_ object: BinaryPlistObjectTable.Object) -> String {
        switch object {
        case .bool: return "bool"
        case .integer: return "integer"
        case .real: return "real"
        case .date: return "date"
        case .uid: return "uid"
        case .data: return "data"
        case .ascii, .utf16: return "string"
        case .array: return "array"
        case .dictionary: return "dict"
        }
    }
}

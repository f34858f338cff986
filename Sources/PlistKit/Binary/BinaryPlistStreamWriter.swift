import Foundation

/// Writes a binary property list (`bplist00`) from events, in time linear in the output.
///
/// Like Core Foundation's writer it stores each distinct string, integer, real, date, data
/// and UID once (uniqued by exact encoded bytes, so `1` and `1.0` stay apart), numbers
/// objects depth first with a dictionary's keys before its values, and picks 1, 2, 4 or
/// 8-byte offsets and references by size. Scalars are encoded as they arrive; containers and
/// the final layout are written by `finish()`.
struct BinaryPlistEncoder: ~Copyable {
    private enum NodeKind: UInt8 { case scalar, array, dictionary }

    /// Encoded scalars, each once.
    private var scratch: ByteOutput
    private var nodeKind: [NodeKind] = []
    /// For a scalar: its start in `scratch`; for a container: its first child in `childRefs`.
    private var nodeStart: [UInt32] = []
    /// For a scalar: its encoded length; for a container: its item (or key/value pair) count.
    private var nodeCount: [UInt32] = []
    private var childRefs: [UInt32] = []
    /// Children of the open containers, innermost last.
    private var pending: [UInt32] = []
    private var open: [(node: UInt32, firstPending: Int, isDictionary: Bool)] = []
    private var root: UInt32?
    /// One entry of the uniquing table, eight bytes so that a probe touches little memory: a
    /// scalar node (plus one; 0 is an empty slot) and the high half of its hash. Its length is
    /// `nodeCount[node]`, compared only when the hash matches.
    private struct Slot {
        var nodePlusOne: UInt32 = 0
        var hashHigh: UInt32 = 0
    }

    /// Open-addressed hash table of scalar nodes, indexed by the low bits of the hash.
    private var slots: [Slot]
    private var scalarCount = 0

    /// An encoder whose buffers and uniquing table start at sizes that suit an input of about
    /// `expectedInputSize` bytes (0: small), so that a large file is not copied and rehashed
    /// as they grow; capacity that is reserved but never written costs no memory.
    init(expectedInputSize: Int = 0) {
        // About 27 bytes of XML per value in typical plists, and rarely fewer than 16.
        let expectedNodes = expectedInputSize / 16
        scratch = ByteOutput(capacity: max(1 << 16, expectedInputSize / 2))
        nodeKind.reserveCapacity(expectedNodes)
        nodeStart.reserveCapacity(expectedNodes)
        nodeCount.reserveCapacity(expectedNodes)
        childRefs.reserveCapacity(expectedNodes)
        // A quarter of the values are distinct scalars or fewer, and the table is kept at most
        // half full; the table's pages are written as it fills, so it is not sized larger.
        var slotCount = 1024
        while slotCount < expectedInputSize / 32 { slotCount *= 2 }
        slots = [Slot](repeating: Slot(), count: slotCount)
    }

    // MARK: Events

    mutating func beginArray() { beginContainer(.array) }
    mutating func beginDictionary() { beginContainer(.dictionary) }

    private mutating func beginContainer(_ kind: NodeKind) {
        let node = UInt32(nodeKind.count)
        nodeKind.append(kind)
        nodeStart.append(0)
        nodeCount.append(0)
        open.append((node, pending.count, kind == .dictionary))
    }

    mutating func endContainer() {
        let frame = open.removeLast()
        let children = pending.count - frame.firstPending
        nodeStart[Int(frame.node)] = UInt32(childRefs.count)
        if frame.isDictionary {
            // Pending holds key, value, key, value…; store all keys, then all values.
            var index = frame.firstPending
            while index < pending.count { childRefs.append(pending[index]); index += 2 }
            index = frame.firstPending + 1
            while index < pending.count { childRefs.append(pending[index]); index += 2 }
            nodeCount[Int(frame.node)] = UInt32(children / 2)
        } else {
            childRefs.append(contentsOf: pending[frame.firstPending...])
            nodeCount[Int(frame.node)] = UInt32(children)
        }
        pending.removeSubrange(frame.firstPending...)
        attach(frame.node)
    }

    private mutating func attach(_ node: UInt32) {
        if open.isEmpty { root = node } else { pending.append(node) }
    }

    mutating func key(_ utf8: UnsafeRawBufferPointer) { string(utf8) }

    mutating func string(_ utf8: UnsafeRawBufferPointer) {
        let start = scratch.count
        // UTF-16 units: one per byte that is not a continuation byte, two for a 4-byte sequence.
        var units = 0
        var isASCII = true
        for byte in utf8 {
            if byte >= 0x80 { isASCII = false }
            units += (byte & 0xC0 != 0x80 ? 1 : 0) + (byte >= 0xF0 ? 1 : 0)
        }
        if isASCII {
            appendMarker(0x5, count: utf8.count)
            scratch.append(utf8)
        } else {
            appendMarker(0x6, count: units)
            scratch.write(maximum: units * 2) { BinaryPlistEncoder.writeUTF16BigEndian(validUTF8: utf8, to: $0) }
        }
        finishScalar(from: start)
    }

    mutating func integer(_ value: PlistInteger) {
        let start = scratch.count
        if value.isUnsignedHigh {
            scratch.append(0x14)
            appendUInt(0, size: 8)
            appendUInt(value.bits, size: 8)
        } else if value.isNegative {
            scratch.append(0x13)
            appendUInt(value.bits, size: 8)
        } else {
            let size = BinaryPlistEncoder.byteCount(for: value.bits)
            scratch.append(0x10 | UInt8(size.trailingZeroBitCount))
            appendUInt(value.bits, size: size)
        }
        finishScalar(from: start)
    }

    mutating func real(_ value: Double) {
        let start = scratch.count
        scratch.append(0x23)
        appendUInt(value.bitPattern, size: 8)
        finishScalar(from: start)
    }

    mutating func bool(_ value: Bool) {
        let start = scratch.count
        scratch.append(value ? 0x09 : 0x08)
        finishScalar(from: start)
    }

    mutating func date(_ value: PlistDate) {
        let start = scratch.count
        scratch.append(0x33)
        appendUInt(value.secondsSinceReferenceDate.bitPattern, size: 8)
        finishScalar(from: start)
    }

    mutating func data(_ bytes: UnsafeRawBufferPointer) {
        let start = scratch.count
        appendMarker(0x4, count: bytes.count)
        scratch.append(bytes)
        finishScalar(from: start)
    }

    mutating func uid(_ value: UInt64) {
        let start = scratch.count
        let size = BinaryPlistEncoder.byteCount(for: value)
        scratch.append(0x80 | UInt8(size - 1))
        appendUInt(value, size: size)
        finishScalar(from: start)
    }

    // MARK: Encoding

    /// Writes valid UTF-8 as UTF-16BE at `out`; returns the bytes written.
    @inline(__always)
    static func writeUTF16BigEndian(validUTF8 utf8: UnsafeRawBufferPointer, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var written = 0
        @inline(__always) func unit(_ value: UInt32) {
            out[written] = UInt8(truncatingIfNeeded: value >> 8)
            out[written + 1] = UInt8(truncatingIfNeeded: value)
            written += 2
        }
        var index = 0
        while index < utf8.count {
            let lead = UInt32(utf8[index])
            @inline(__always) func next(_ offset: Int) -> UInt32 { UInt32(utf8[index + offset]) & 0x3F }
            if lead < 0x80 {
                unit(lead)
                index += 1
            } else if lead < 0xE0 {
                unit((lead & 0x1F) << 6 | next(1))
                index += 2
            } else if lead < 0xF0 {
                unit((lead & 0x0F) << 12 | next(1) << 6 | next(2))
                index += 3
            } else {
                let scalar = (lead & 0x07) << 18 | next(1) << 12 | next(2) << 6 | next(3)
                unit(0xD800 + ((scalar - 0x10000) >> 10))
                unit(0xDC00 + ((scalar - 0x10000) & 0x3FF))
                index += 4
            }
        }
        return written
    }

    static func byteCount(for value: UInt64) -> Int {
        if value <= 0xFF { return 1 }
        if value <= 0xFFFF { return 2 }
        if value <= 0xFFFF_FFFF { return 4 }
        return 8
    }

    @inline(__always) private mutating func appendUInt(_ value: UInt64, size: Int) {
        scratch.write(maximum: 8) { BinaryPlistEncoder.writeUInt(value, size: size, to: $0) }
    }

    /// Writes the low `size` bytes of `value` big-endian at `out`; returns `size`.
    @inline(__always) static func writeUInt(_ value: UInt64, size: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let raw = UnsafeMutableRawPointer(out)
        switch size {
        case 1: out.pointee = UInt8(truncatingIfNeeded: value); return 1
        case 2: raw.storeBytes(of: UInt16(truncatingIfNeeded: value).bigEndian, as: UInt16.self); return 2
        case 4: raw.storeBytes(of: UInt32(truncatingIfNeeded: value).bigEndian, as: UInt32.self); return 4
        case 8: raw.storeBytes(of: value.bigEndian, as: UInt64.self); return 8
        default: break
        }
        var shift = (size - 1) * 8
        var index = 0
        while shift >= 0 {
            out[index] = UInt8(truncatingIfNeeded: value >> UInt64(shift))
            shift -= 8
            index += 1
        }
        return size
    }

    private mutating func appendMarker(_ kind: UInt8, count: Int) {
        scratch.write(maximum: BinaryPlistEncoder.maximumMarkerLength) { BinaryPlistEncoder.writeMarker(kind, count: count, to: $0) }
    }

    /// The most bytes a marker with its count takes: the marker, an integer marker and 8 bytes.
    static let maximumMarkerLength = 10

    /// Writes a marker with `count` at `out` as `appendMarker` does; returns the bytes written.
    @inline(__always) static func writeMarker(_ kind: UInt8, count: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        if count < 15 {
            out[0] = kind << 4 | UInt8(count)
            return 1
        }
        out[0] = kind << 4 | 0x0F
        let size = byteCount(for: UInt64(count))
        out[1] = 0x10 | UInt8(size.trailingZeroBitCount)
        return 2 + writeUInt(UInt64(count), size: size, to: out + 2)
    }

    /// How many bytes `writeMarker` takes for `count`.
    @inline(__always) static func markerLength(count: Int) -> Int {
        count < 15 ? 1 : 2 + byteCount(for: UInt64(count))
    }

    /// Uniques the scalar just encoded at `scratch[start...]`: reuses an equal one or keeps it.
    private mutating func finishScalar(from start: Int) {
        let length = scratch.count - start
        let buffer = scratch.buffer
        let encoded = UnsafeRawBufferPointer(rebasing: buffer[start..<(start + length)])
        let hash = BinaryPlistEncoder.hash(encoded)
        let hashHigh = UInt32(truncatingIfNeeded: hash >> 32)
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: hash) & mask
        let found: UInt32? = slots.withUnsafeBufferPointer { slots in
            nodeStart.withUnsafeBufferPointer { nodeStart in
                nodeCount.withUnsafeBufferPointer { nodeCount in
                    while true {
                        let slot = slots[index]
                        if slot.nodePlusOne == 0 { return nil }
                        let node = Int(slot.nodePlusOne - 1)
                        if slot.hashHigh == hashHigh && nodeCount[node] == UInt32(length)
                            && memcmp(buffer.baseAddress! + Int(nodeStart[node]), encoded.baseAddress!, length) == 0
                        {
                            return UInt32(node)
                        }
                        index = (index + 1) & mask
                    }
                }
            }
        }
        if let found {
            scratch.truncate(to: start)
            attach(found)
            return
        }
        let newNode = UInt32(nodeKind.count)
        nodeKind.append(.scalar)
        nodeStart.append(UInt32(start))
        nodeCount.append(UInt32(length))
        slots[index] = Slot(nodePlusOne: newNode + 1, hashHigh: hashHigh)
        scalarCount += 1
        if scalarCount * 2 > slots.count { rehash(capacity: slots.count * 2) }
        attach(newNode)
    }

    /// A fast 64-bit hash of a scalar's encoded bytes, eight bytes at a time.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            hash = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 32
            offset += 8
        }
        // The last 1 to 7 bytes without a loop (keys and short strings are mostly this tail): 4 to
        // 7 as two overlapping 4-byte loads, 1 to 3 as the first, middle and last byte; with the
        // length in the seed, distinct tails of one length stay distinct.
        let remaining = bytes.count - offset
        var tail: UInt64 = 0
        if remaining >= 4 {
            let low = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            let high = bytes.loadUnaligned(fromByteOffset: bytes.count - 4, as: UInt32.self)
            tail = UInt64(low) | UInt64(high) << 32
        } else if remaining > 0 {
            tail = UInt64(bytes[offset]) | UInt64(bytes[offset + remaining / 2]) << 8 | UInt64(bytes[bytes.count - 1]) << 16
        }
        hash = (hash ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        return hash ^ (hash >> 29)
    }

    /// Moves every scalar into a table of `capacity` slots, hashing its encoded bytes again.
    private mutating func rehash(capacity: Int) {
        var grown = [Slot](repeating: Slot(), count: capacity)
        let mask = capacity - 1
        let encoded = scratch.buffer
        for slot in slots where slot.nodePlusOne != 0 {
            let node = Int(slot.nodePlusOne - 1)
            let start = Int(nodeStart[node])
            let hash = BinaryPlistEncoder.hash(UnsafeRawBufferPointer(rebasing: encoded[start..<(start + Int(nodeCount[node]))]))
            var index = Int(truncatingIfNeeded: hash) & mask
            while grown[index].nodePlusOne != 0 { index = (index + 1) & mask }
            grown[index] = slot
        }
        slots = grown
    }

    // MARK: Layout

    /// The finished file. Call once, after the last event.
    mutating func finish() -> [UInt8] {
        guard let root else { return [] }
        // Release the uniquing table before laying out, to keep the peak down.
        slots = []
        let nodes = nodeKind.count
        var number = [UInt32](repeating: .max, count: nodes)
        var order = [UInt32](repeating: 0, count: nodes)
        var numbered = 0
        // Number objects the way Core Foundation does: a container, then its keys, then its values.
        // Read through unsafe buffers: this loop runs once per reference in the file.
        nodeKind.withUnsafeBufferPointer { nodeKind in
            nodeStart.withUnsafeBufferPointer { nodeStart in
                nodeCount.withUnsafeBufferPointer { nodeCount in
                    childRefs.withUnsafeBufferPointer { childRefs in
                        number.withUnsafeMutableBufferPointer { number in
                            order.withUnsafeMutableBufferPointer { order in
                                var stack: [(node: UInt32, next: Int, total: Int)] = []
                                func visit(_ node: UInt32) {
                                    guard number[Int(node)] == .max else { return }
                                    number[Int(node)] = UInt32(numbered)
                                    order[numbered] = node
                                    numbered += 1
                                    let kind = nodeKind[Int(node)]
                                    if kind != .scalar {
                                        let total = Int(nodeCount[Int(node)]) * (kind == .dictionary ? 2 : 1)
                                        stack.append((node, Int(nodeStart[Int(node)]), Int(nodeStart[Int(node)]) + total))
                                    }
                                }
                                visit(root)
                                while let top = stack.last {
                                    if top.next == top.total { stack.removeLast(); continue }
                                    stack[stack.count - 1].next += 1
                                    visit(childRefs[top.next])
                                }
                            }
                        }
                    }
                }
            }
        }
        order.removeLast(nodes - numbered)
        let refSize = BinaryPlistEncoder.byteCount(for: UInt64(order.count))
        // Size the file exactly first, so it is written in place in one allocation.
        var tableOffset = 8
        for node in order {
            let count = Int(nodeCount[Int(node)])
            switch nodeKind[Int(node)] {
            case .scalar: tableOffset += count
            case .array: tableOffset += BinaryPlistEncoder.markerLength(count: count) + count * refSize
            case .dictionary: tableOffset += BinaryPlistEncoder.markerLength(count: count) + 2 * count * refSize
            }
        }
        let offsetSize = BinaryPlistEncoder.byteCount(for: UInt64(tableOffset))
        let total = tableOffset + order.count * offsetSize + 32
        let encoded = scratch.buffer
        return [UInt8](unsafeUninitializedCapacity: total) { file, initialized in
            let out = file.baseAddress!
            var position = 8
            var offsetEntry = tableOffset
            let header: StaticString = "bplist00"
            out.update(from: header.utf8Start, count: 8)
            for node in order {
                offsetEntry += BinaryPlistEncoder.writeUInt(UInt64(position), size: offsetSize, to: out + offsetEntry)
                let start = Int(nodeStart[Int(node)]), count = Int(nodeCount[Int(node)])
                switch nodeKind[Int(node)] {
                case .scalar:
                    UnsafeMutableRawPointer(out + position).copyMemory(from: encoded.baseAddress! + start, byteCount: count)
                    position += count
                case .array, .dictionary:
                    let isDictionary = nodeKind[Int(node)] == .dictionary
                    position += BinaryPlistEncoder.writeMarker(isDictionary ? 0xD : 0xA, count: count, to: out + position)
                    for child in childRefs[start..<(start + (isDictionary ? count * 2 : count))] {
                        position += BinaryPlistEncoder.writeUInt(UInt64(number[Int(child)]), size: refSize, to: out + position)
                    }
                }
            }
            precondition(position == tableOffset && offsetEntry == total - 32, "binary plist layout size mismatch")
            var trailer = offsetEntry
            (out + trailer).update(repeating: 0, count: 6)
            out[trailer + 6] = UInt8(offsetSize)
            out[trailer + 7] = UInt8(refSize)
            trailer += 8
            trailer += BinaryPlistEncoder.writeUInt(UInt64(order.count), size: 8, to: out + trailer)
            trailer += BinaryPlistEncoder.writeUInt(0, size: 8, to: out + trailer)
            trailer += BinaryPlistEncoder.writeUInt(UInt64(tableOffset), size: 8, to: out + trailer)
            initialized = trailer
        }
    }
}

/// Writes a binary property list (`bplist00`) from events; see `BinaryPlistEncoder` for the
/// layout. Scalars are encoded as they arrive; `finish()` lays out the file.
public final class BinaryPlistStreamWriter: PlistEventSink {
    /// Behind a pointer, so the per-event calls skip the dynamic exclusivity checks a stored
    /// class property would cost; only this object touches it.
    private let encoder: UnsafeMutablePointer<BinaryPlistEncoder>

    /// `expectedInputSize`: about how many bytes the input has, to size buffers up front (0: small).
    public init(expectedInputSize: Int = 0) {
        encoder = .allocate(capacity: 1)
        encoder.initialize(to: BinaryPlistEncoder(expectedInputSize: expectedInputSize))
    }

    deinit {
        encoder.deinitialize(count: 1)
        encoder.deallocate()
    }

    /// The finished file. Call once, after the last event.
    public func finish() -> [UInt8] { encoder.pointee.finish() }

    public func beginArray() { encoder.pointee.beginArray() }
    public func beginDictionary() { encoder.pointee.beginDictionary() }
    public func endContainer() { encoder.pointee.endContainer() }
    public func key(_ utf8: UnsafeRawBufferPointer) { encoder.pointee.string(utf8) }
    public func string(_ utf8: UnsafeRawBufferPointer) { encoder.pointee.string(utf8) }
    public func integer(_ value: PlistInteger) { encoder.pointee.integer(value) }
    public func real(_ value: Double) { encoder.pointee.real(value) }
    public func bool(_ value: Bool) { encoder.pointee.bool(value) }
    public func date(_ value: PlistDate) { encoder.pointee.date(value) }
    public func data(_ bytes: UnsafeRawBufferPointer) { encoder.pointee.data(bytes) }
    public func uid(_ value: UInt64) { encoder.pointee.uid(value) }
}

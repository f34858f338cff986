/// The text of the XML element being read, gathered from libxml2's `characters` callbacks.
///
/// Raw storage rather than a `[UInt8]`: it is appended to and cleared for every scalar element,
/// and an array's uniqueness checks and generic `removeAll` were a measurable part of that. It is
/// copied only as part of the parse state that owns it, which frees it once with `deallocate()`.
struct XMLTextBuffer {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    init(capacity: Int = 256) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    /// The text so far, valid until the next change.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    mutating func removeAll() { count = 0 }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        if count + bytes.count > capacity {
            var newCapacity = capacity * 2
            while newCapacity < count + bytes.count { newCapacity *= 2 }
            let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            newBase.update(from: base, count: count)
            base.deallocate()
            base = newBase
            capacity = newCapacity
        }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func append(_ byte: UInt8) {
        withUnsafePointer(to: byte) { append(UnsafeBufferPointer(start: $0, count: 1)) }
    }

    func deallocate() { base.deallocate() }
}

/// Receives a plist as a stream of events in document order, so readers and writers can be
/// joined without building the whole value in memory (`adhocbuild plist convert` streams
/// XML to binary and binary to XML this way).
///
/// Byte buffers passed to a sink are only valid during the call. Strings and keys arrive as
/// valid UTF-8. Readers check structure and duplicate keys before they emit, so a sink sees
/// only well-formed sequences: every `begin…` is matched by `endContainer`, and inside a
/// dictionary each value follows its `key`.
public protocol PlistEventSink: AnyObject {
    func beginArray() throws
    func beginDictionary() throws
    func endContainer() throws
    func key(_ utf8: UnsafeRawBufferPointer) throws
    func string(_ utf8: UnsafeRawBufferPointer) throws
    func integer(_ value: PlistInteger) throws
    func real(_ value: Double) throws
    func bool(_ value: Bool) throws
    func date(_ value: PlistDate) throws
    func data(_ bytes: UnsafeRawBufferPointer) throws
    func uid(_ value: UInt64) throws
}

extension PlistValue {
    /// Emits this value as events, depth first; `sortKeys` orders dictionary keys as Apple does.
    public func emit(to sink: PlistEventSink, sortKeys: Bool = false) throws {
        switch self {
        case .string(var string): try string.withUTF8 { try sink.string(UnsafeRawBufferPointer($0)) }
        case .integer(let integer): try sink.integer(integer)
        case .real(let real): try sink.real(real)
        case .bool(let bool): try sink.bool(bool)
        case .date(let date): try sink.date(date)
        case .data(let data): try data.withUnsafeBytes { try sink.data($0) }
        case .uid(let uid): try sink.uid(uid)
        case .array(let items):
            try sink.beginArray()
            for item in items { try item.emit(to: sink, sortKeys: sortKeys) }
            try sink.endContainer()
        case .dictionary(var dict):
            if sortKeys { dict.sortKeys() }
            try sink.beginDictionary()
            for (key, item) in dict {
                var key = key
                try key.withUTF8 { try sink.key(UnsafeRawBufferPointer($0)) }
                try item.emit(to: sink, sortKeys: sortKeys)
            }
            try sink.endContainer()
        }
    }
}

/// Builds a `PlistValue` from events.
public final class PlistTreeBuilder: PlistEventSink {
    private enum Frame {
        case array([PlistValue])
        case dictionary(PlistDictionary, pendingKey: String?)
    }

    private var frames: [Frame] = []
    /// The finished value, once the outermost container ends (or the root scalar arrives).
    public private(set) var root: PlistValue?

    public init() {}

    private func add(_ value: PlistValue) {
        guard let top = frames.indices.last else { root = value; return }
        switch frames[top] {
        case .array(var items):
            frames[top] = .array([])  // keep `items` uniquely referenced while it grows
            items.append(value)
            frames[top] = .array(items)
        case .dictionary(var dict, let key):
            frames[top] = .array([])
            dict.append(key ?? "", value)
            frames[top] = .dictionary(dict, pendingKey: nil)
        }
    }

    public func beginArray() { frames.append(.array([])) }
    public func beginDictionary() { frames.append(.dictionary(PlistDictionary(), pendingKey: nil)) }

    public func endContainer() {
        switch frames.removeLast() {
        case .array(let items): add(.array(items))
        case .dictionary(let dict, _): add(.dictionary(dict))
        }
    }

    public func key(_ utf8: UnsafeRawBufferPointer) {
        guard case .dictionary(let dict, _) = frames[frames.count - 1] else { return }
        frames[frames.count - 1] = .dictionary(dict, pendingKey: String(decoding: utf8, as: UTF8.self))
    }

    public func string(_ utf8: UnsafeRawBufferPointer) { add(.string(String(decoding: utf8, as: UTF8.self))) }
    public func integer(_ value: PlistInteger) { add(.integer(value)) }
    public func real(_ value: Double) { add(.real(value)) }
    public func bool(_ value: Bool) { add(.bool(value)) }
    public func date(_ value: PlistDate) { add(.date(value)) }
    public func data(_ bytes: UnsafeRawBufferPointer) { add(.data(.init(bytes))) }
    public func uid(_ value: UInt64) { add(.uid(value)) }
}

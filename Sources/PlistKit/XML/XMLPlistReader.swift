import CLibXML2
import Foundation
import SystemSupport

/// Reads Apple's XML property lists through libxml2's SAX2 interface.
///
/// The parser never touches the network, never loads a DTD and never expands an entity:
/// a document that declares entities or other markup in a DOCTYPE internal subset is
/// rejected before anything is expanded. Errors carry line:column.
public struct XMLPlistReader {
    public var limits: PlistLimits

    public init(limits: PlistLimits = .default) { self.limits = limits }

    public func read(_ bytes: Data) throws -> PlistValue {
        let builder = try read(bytes, intoFresh: PlistTreeBuilder.init)
        guard let root = builder.root else { throw Diagnostic.plist(.malformed, "the document holds no plist value") }
        return root
    }

    /// Parses `bytes` into a sink that `makeSink` makes: first with `XMLPlistFastScanner`, and
    /// when that declines, into a second, fresh sink through libxml2, which reports any error.
    /// Returns the sink that received the whole document.
    func read<Sink: PlistEventSink>(_ bytes: Data, intoFresh makeSink: () -> Sink) throws -> Sink {
        if bytes.count < Int(Int32.max) {
            let sink = makeSink()
            if bytes.withUnsafeBytes({ XMLPlistFastScanner.read($0, limits: limits, into: sink) }) { return sink }
        }
        let sink = makeSink()
        try read(bytes, into: sink)
        return sink
    }

    /// Sends the document in `bytes` to `sink` through the fast reader alone, which reads the
    /// plain XML plist writers produce (see `XMLPlistFastScanner`); false when it declines a
    /// document outside that subset or with an error. The sink may then hold part of the
    /// document and must be dropped: ``read(_:into:)`` reads any document and names its errors.
    /// Accepted documents give the events libxml2 would give.
    public func readPlainXML(_ bytes: Data, into sink: PlistEventSink) -> Bool {
        guard bytes.count < Int(Int32.max), (try? limits.checkInputSize(bytes.count)) != nil else { return false }
        return bytes.withUnsafeBytes { XMLPlistFastScanner.read($0, limits: limits, into: sink) }
    }

    /// Parses `bytes`, sending each value to `sink` as it is read.
    public func read(_ bytes: Data, into sink: PlistEventSink) throws {
        guard bytes.count < Int(Int32.max) else {
            throw Diagnostic.plist(.limitExceeded, "XML plists over 2 GiB are not supported")
        }
        if bytes.count >= 2, bytes[bytes.startIndex] == UInt8(ascii: "<"), bytes[bytes.startIndex + 1] == 0 {
            throw Diagnostic.plist(
                .malformed, "UTF-16 text without a byte-order mark is not supported; save it as UTF-8",
                at: .byte(1))
        }
        let state = XMLPlistParseBox(XMLPlistParseState(limits: limits, sink: sink))
        let stateRef = Unmanaged.passRetained(state)
        defer { stateRef.release() }

        try bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let base = raw.baseAddress?.assumingMemoryBound(to: CChar.self) ?? UnsafePointer<CChar>(bitPattern: 1)!
            guard let ctxt = xmlCreateMemoryParserCtxt(base, Int32(raw.count)) else {
                throw Diagnostic.plist(.io, "libxml2 could not create a parser")
            }
            defer {
                if let doc = ctxt.pointee.myDoc { xmlFreeDoc(doc) }
                xmlFreeParserCtxt(ctxt)
            }
            ctxt.pointee.sax.pointee = XMLPlistParseState.handler
            ctxt.pointee._private = UnsafeMutableRawPointer(stateRef.toOpaque())
            state.context = ctxt
            // Errors libxml2 raises without a parser (the encoding converter's, its I/O layer's)
            // reach the thread's structured handler, and libxml2 printed them itself when there
            // was none; they become this parse's error instead, and the thread's handler is put back.
            let previous = (__xmlStructuredError().pointee, __xmlStructuredErrorContext().pointee)
            xmlSetStructuredErrorFunc(UnsafeMutableRawPointer(stateRef.toOpaque()), XMLPlistParseState.unattachedError)
            defer { xmlSetStructuredErrorFunc(previous.1, previous.0) }
            let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_HUGE.rawValue)
            _ = xmlCtxtUseOptions(ctxt, options)
            // xmlCtxtUseOptions may reset these; keep entity substitution and DTD loading off.
            ctxt.pointee.replaceEntities = 0
            ctxt.pointee.loadsubset = 0
            ctxt.pointee.validate = 0
            _ = xmlParseDocument(ctxt)
            if state.parser.error == nil && ctxt.pointee.wellFormed == 0 {
                state.parser.error = Diagnostic.plist(.malformed, "the XML is not well-formed")
            }
            if state.parser.error == nil { state.parser.finish() }
        }
        if let error = state.parser.error { throw error }
    }
}

/// Holds the parse state for libxml2's C callbacks, which reach it through `_private`.
final class XMLPlistParseBox {
    /// Behind a pointer, so each callback skips the dynamic exclusivity checks a stored class
    /// property would cost; only the parse (one thread) touches it.
    private let storage: UnsafeMutablePointer<XMLPlistParseState>

    /// The libxml2 parser reading the document, for the position of errors raised without it.
    var context: xmlParserCtxtPtr?

    init(_ parser: XMLPlistParseState) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: parser)
    }

    deinit {
        storage.pointee.text.deallocate()
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// Addressed in place: a `_read` coroutine here yielded a temporary copy that was freed while
    /// still in use (AddressSanitizer, found by the xml-plist fuzzer).
    var parser: XMLPlistParseState {
        @inline(__always) unsafeAddress { UnsafePointer(storage) }
        @inline(__always) unsafeMutableAddress { storage }
    }
}

/// The mutable state of one XML parse: it checks the plist structure and turns elements into
/// events for its sink. A struct, so each callback costs one exclusivity check, not one per field.
struct XMLPlistParseState {
    enum Element: UInt8 {
        case plist, dict, array, key, string, integer, real, date, data, `true`, `false`
    }

    enum Frame {
        /// The `<plist>` element (or an implicit one when the root is a value element).
        case plist(hasValue: Bool, implicit: Bool)
        case array
        case dictionary(hasPendingKey: Bool)
    }

    let limits: PlistLimits
    let sink: PlistEventSink
    var frames: [Frame] = []
    var sawRootElement = false
    var finishedRoot = false
    /// The scalar element being read and its text so far.
    var scalar: Element?
    var text = XMLTextBuffer()
    var valueCount = 0
    var keys = DuplicateKeyDetector()
    var error: Diagnostic? { didSet { failed = error != nil } }
    /// Mirrors `error != nil`, cheap to test on every callback.
    private(set) var failed = false

    init(limits: PlistLimits, sink: PlistEventSink) {
        self.limits = limits
        self.sink = sink
    }

    /// Runs `body` with the parse state behind a libxml2 callback's context, without retaining it
    /// (the reader keeps it alive for the whole parse).
    @inline(__always)
    static func with(_ ctx: UnsafeMutableRawPointer?, _ body: (XMLPlistParseBox, xmlParserCtxtPtr) -> Void) {
        let ctxt = ctx!.assumingMemoryBound(to: xmlParserCtxt.self)
        Unmanaged<XMLPlistParseBox>.fromOpaque(ctxt.pointee._private!)._withUnsafeGuaranteedRef { body($0, ctxt) }
    }

    mutating func fail(_ ctxt: xmlParserCtxtPtr?, _ message: String) { fail(ctxt, .malformed, message) }

    /// Records the first error at the parser's current position and stops the parse. Without a
    /// parser (`XMLPlistFastScanner`) the error has no position: that reader then gives up and
    /// the document is read again through libxml2, which reports it.
    mutating func fail(_ ctxt: xmlParserCtxtPtr?, _ kind: PlistProblem, _ message: String) {
        guard !failed else { return }
        guard let ctxt else {
            error = Diagnostic.plist(kind, message)
            return
        }
        let line = Int(xmlSAX2GetLineNumber(ctxt))
        let column = Int(xmlSAX2GetColumnNumber(ctxt))
        error = Diagnostic.plist(kind, message, at: .line(line, column: column))
        xmlStopParser(ctxt)
    }

    /// Turns an error thrown by the sink into a located parse failure.
    mutating func fail(_ ctxt: xmlParserCtxtPtr?, _ error: Error) {
        if let sinkError = error as? Diagnostic {
            fail(ctxt, sinkError.plistProblem ?? .io, sinkError.message)
        } else {
            fail(ctxt, .io, "\(error)")
        }
    }

    static func element(named name: UnsafePointer<xmlChar>) -> Element? {
        let length = strlen(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self))
        return element(named: UnsafeBufferPointer(start: name, count: length))
    }

    /// The element called `name`, nil for any other name.
    @inline(__always)
    static func element(named name: UnsafeBufferPointer<UInt8>) -> Element? {
        guard let start = name.baseAddress, name.count > 0 else { return nil }
        let length = name.count
        @inline(__always) func matches(_ candidate: StaticString) -> Bool {
            candidate.utf8CodeUnitCount == length && XMLPlistFastScanner.matches(candidate, at: start, start + length)
        }
        switch start[0] {
        case UInt8(ascii: "k"): return matches("key") ? .key : nil
        case UInt8(ascii: "s"): return matches("string") ? .string : nil
        case UInt8(ascii: "i"): return matches("integer") ? .integer : nil
        case UInt8(ascii: "r"): return matches("real") ? .real : nil
        case UInt8(ascii: "t"): return matches("true") ? .true : nil
        case UInt8(ascii: "f"): return matches("false") ? .false : nil
        case UInt8(ascii: "a"): return matches("array") ? .array : nil
        case UInt8(ascii: "p"): return matches("plist") ? .plist : nil
        case UInt8(ascii: "d"):
            if matches("dict") { return .dict }
            if matches("date") { return .date }
            return matches("data") ? .data : nil
        default: return nil
        }
    }

    mutating func startElement(_ ctxt: xmlParserCtxtPtr, _ name: UnsafePointer<xmlChar>) {
        guard !failed else { return }
        guard let element = XMLPlistParseState.element(named: name) else {
            fail(ctxt, "unknown element <\(String(cString: name))>")
            return
        }
        startElement(ctxt, element)
    }

    /// The start of a known element (whose name is `"\(element)"`).
    mutating func startElement(_ ctxt: xmlParserCtxtPtr?, _ element: Element) {
        guard !failed else { return }
        if let scalar {
            fail(ctxt, "<\(element)> is not allowed inside <\(scalar)>")
            return
        }
        if element == .plist {
            guard frames.isEmpty && !sawRootElement else {
                fail(ctxt, "<plist> is only allowed as the document element")
                return
            }
            sawRootElement = true
            frames.append(.plist(hasValue: false, implicit: false))
            return
        }
        if frames.isEmpty {
            if sawRootElement { fail(ctxt, "content after the root element"); return }
            sawRootElement = true
            frames.append(.plist(hasValue: false, implicit: true))
        }
        switch frames[frames.count - 1] {
        case .dictionary(let hasPendingKey):
            if element == .key && hasPendingKey {
                fail(ctxt, "key '\(keys.lastKey)' has no value before the next <key>")
                return
            }
            if element != .key && !hasPendingKey {
                fail(ctxt, "<\(element)> in a <dict> without a <key> before it")
                return
            }
        case .plist(let hasValue, _):
            if element == .key { fail(ctxt, "<key> outside a <dict>"); return }
            if hasValue { fail(ctxt, "<plist> holds more than one root value"); return }
        case .array:
            if element == .key { fail(ctxt, "<key> outside a <dict>"); return }
        }
        switch element {
        case .dict, .array:
            if frames.count > limits.maxDepth {
                fail(ctxt, .limitExceeded, "nesting deeper than \(limits.maxDepth) levels")
                return
            }
            countValue(ctxt)
            if element == .dict {
                keys.beginDictionary()
                do { try sink.beginDictionary() } catch { fail(ctxt, error) }
                frames.append(.dictionary(hasPendingKey: false))
            } else {
                do { try sink.beginArray() } catch { fail(ctxt, error) }
                frames.append(.array)
            }
        default:
            scalar = element
            text.removeAll()
        }
    }

    mutating func endElement(_ ctxt: xmlParserCtxtPtr, _ name: UnsafePointer<xmlChar>) {
        endElement(ctxt, text: text.bytes)
    }

    /// The end of the current element; `text` is the whole text of a scalar element.
    mutating func endElement(_ ctxt: xmlParserCtxtPtr?, text: UnsafeBufferPointer<UInt8>) {
        guard !failed else { return }
        if let element = scalar {
            scalar = nil
            if element == .key {
                guard keys.insert(UnsafeRawBufferPointer(text)) else {
                    fail(ctxt, "key '\(String(decoding: text, as: UTF8.self))' appears twice in the same <dict>")
                    return
                }
                do { try sink.key(UnsafeRawBufferPointer(text)) } catch { fail(ctxt, error) }
                frames[frames.count - 1] = .dictionary(hasPendingKey: true)
                return
            }
            countValue(ctxt)
            emitScalar(element, text, ctxt)
            valueDone()
            return
        }
        guard let frame = frames.popLast() else { return }
        switch frame {
        case .plist(let hasValue, _):
            guard hasValue else { fail(ctxt, "<plist> holds no value"); return }
            finishedRoot = true
        case .array:
            do { try sink.endContainer() } catch { fail(ctxt, error) }
            valueDone()
        case .dictionary(let hasPendingKey):
            if hasPendingKey {
                fail(ctxt, "key '\(keys.lastKey)' has no value before </dict>")
                return
            }
            keys.endDictionary()
            do { try sink.endContainer() } catch { fail(ctxt, error) }
            valueDone()
        }
    }

    private mutating func countValue(_ ctxt: xmlParserCtxtPtr?) {
        valueCount += 1
        if valueCount > limits.maxValues { fail(ctxt, .limitExceeded, "more than \(limits.maxValues) values") }
    }

    /// Marks the innermost container as having received a value.
    private mutating func valueDone() {
        guard let top = frames.indices.last else { return }
        switch frames[top] {
        case .plist(_, let implicit): frames[top] = .plist(hasValue: true, implicit: implicit)
        case .dictionary: frames[top] = .dictionary(hasPendingKey: false)
        case .array: break
        }
    }

    /// `text` without leading and trailing XML white space.
    private func trimmed(_ text: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var start = 0
        var end = text.count
        while start < end, isXMLSpace(text[start]) { start += 1 }
        while end > start, isXMLSpace(text[end - 1]) { end -= 1 }
        return UnsafeBufferPointer(rebasing: text[start..<end])
    }

    private func trimmedText(_ text: UnsafeBufferPointer<UInt8>) -> String { String(decoding: trimmed(text), as: UTF8.self) }

    private func isXMLSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    private mutating func emitScalar(_ element: Element, _ text: UnsafeBufferPointer<UInt8>, _ ctxt: xmlParserCtxtPtr?) {
        do {
            switch element {
            case .string:
                try sink.string(UnsafeRawBufferPointer(text))
            case .integer:
                if text.last.map(isXMLSpace) == true { fail(ctxt, "white space after the value in <integer>"); return }
                guard let value = PlistInteger(utf8: trimmed(text)) else {
                    fail(ctxt, "'\(trimmedText(text))' is not an integer from -2^63 to 2^64-1")
                    return
                }
                try sink.integer(value)
            case .real:
                if text.last.map(isXMLSpace) == true { fail(ctxt, "white space after the value in <real>"); return }
                guard let value = XMLPlistParseState.parseReal(trimmed(text)) else {
                    fail(ctxt, "'\(trimmedText(text))' is not a real number")
                    return
                }
                try sink.real(value)
            case .date:
                if text.first.map(isXMLSpace) == true || text.last.map(isXMLSpace) == true {
                    fail(ctxt, "white space around the value in <date>")
                    return
                }
                guard let value = PlistDate(xmlPlistUTF8: trimmed(text)) else {
                    fail(ctxt, "'\(trimmedText(text))' is not a date of the form YYYY-MM-DDTHH:MM:SSZ")
                    return
                }
                try sink.date(value)
            case .data:
                // Decoded on the stack (or one temporary buffer for a large value) and handed to the sink.
                let decoded = try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Base64.decodedCapacity(text.count)) {
                    buffer -> Result<Void, Base64.DecodeFailure> in
                    let result = Base64.decode(text, into: buffer.baseAddress!)
                    guard case .success(let count) = result else { return result.map { _ in } }
                    try sink.data(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
                    return .success(())
                }
                switch decoded {
                case .success: break
                case .failure(let failure):
                    let what =
                        failure.byte.map { "the character '\(String(UnicodeScalar($0)))'" }
                        ?? (failure.isUnpadded ? "a final group without full '=' padding" : "a truncated group")
                    fail(ctxt, "<data> is not valid base64: \(what) at offset \(failure.offset) of its text")
                }
            case .true, .false:
                guard text.isEmpty else {
                    fail(ctxt, "<\(element)/> must be empty")
                    return
                }
                try sink.bool(element == .true)
            case .plist, .dict, .array, .key:
                break
            }
        } catch {
            fail(ctxt, error)
        }
    }

    /// Parses a `<real>`: decimal or exponent notation, `nan` (without a sign, as Core Foundation
    /// reads it), `inf` or `infinity` with or without a sign.
    static func parseReal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard !bytes.isEmpty, bytes.count < 512 else { return nil }
        var digits = false
        for unit in bytes {
            switch unit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits = true
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"), UInt8(ascii: "-"): continue
            default:
                switch String(decoding: bytes, as: UTF8.self).lowercased() {
                case "nan": return .nan
                case "inf", "+inf", "infinity", "+infinity": return .infinity
                case "-inf", "-infinity": return -.infinity
                default: return nil
                }
            }
        }
        guard digits else { return nil }
        // strtod needs a terminated string; the C locale is in force (nothing here calls setlocale).
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { buffer in
            for (index, unit) in bytes.enumerated() { buffer[index] = CChar(bitPattern: unit) }
            buffer[bytes.count] = 0
            var end: UnsafeMutablePointer<CChar>? = nil
            let value = strtod(buffer.baseAddress!, &end)
            return end == buffer.baseAddress! + bytes.count ? value : nil
        }
    }

    mutating func characters(_ ctxt: xmlParserCtxtPtr, _ chars: UnsafePointer<xmlChar>, _ length: Int) {
        guard !failed else { return }
        let bytes = UnsafeBufferPointer(start: chars, count: length)
        if scalar != nil {
            text.append(bytes)
        } else if bytes.contains(where: { !isXMLSpace($0) }) {
            fail(ctxt, "text outside a value element")
        }
    }

    /// A CDATA section: text in `<string>`, `<key>` and `<real>`, where Core Foundation reads it,
    /// and an error in any other value, where it does not.
    mutating func cdata(_ ctxt: xmlParserCtxtPtr, _ chars: UnsafePointer<xmlChar>, _ length: Int) {
        guard !failed else { return }
        if let scalar, scalar != .string, scalar != .key, scalar != .real {
            fail(ctxt, "a CDATA section inside <\(scalar)>; only <string>, <key> and <real> may hold one")
            return
        }
        characters(ctxt, chars, length)
    }

    /// A comment or processing instruction: allowed between elements, not inside a value's text
    /// (Core Foundation refuses it there rather than joining the text around it).
    mutating func markupInsideValue(_ ctxt: xmlParserCtxtPtr, _ what: String) {
        guard !failed, let scalar else { return }
        fail(ctxt, "\(what) inside <\(scalar)>")
    }

    /// An element with a namespace prefix (`<x:string>`): no plist element has one.
    mutating func prefixedElement(_ ctxt: xmlParserCtxtPtr, _ prefix: UnsafePointer<xmlChar>, _ name: UnsafePointer<xmlChar>) {
        guard !failed else { return }
        fail(ctxt, "unknown element <\(String(cString: prefix)):\(String(cString: name))>")
    }

    /// Checks the end state: a document whose root is a value element leaves its implicit frame open.
    mutating func finish() {
        if !finishedRoot, frames.count == 1, case .plist(true, true) = frames[0] { finishedRoot = true }
        if !finishedRoot && !failed { error = Diagnostic.plist(.malformed, "the document holds no plist value") }
    }

    // nonisolated(unsafe): built once and never changed; libxml2 only reads the callbacks from it.
    nonisolated(unsafe) static let handler: xmlSAXHandler = {
        var sax = xmlSAXHandler()
        sax.initialized = XML_SAX2_MAGIC
        sax.startElementNs = { ctx, localname, prefix, _, _, _, _, _, _ in
            XMLPlistParseState.with(ctx) { state, ctxt in
                if let prefix {
                    state.parser.prefixedElement(ctxt, prefix, localname!)
                } else {
                    state.parser.startElement(ctxt, localname!)
                }
            }
        }
        sax.endElementNs = { ctx, localname, _, _ in
            XMLPlistParseState.with(ctx) { state, ctxt in state.parser.endElement(ctxt, localname!) }
        }
        sax.characters = { ctx, chars, length in
            XMLPlistParseState.with(ctx) { state, ctxt in state.parser.characters(ctxt, chars!, Int(length)) }
        }
        sax.ignorableWhitespace = sax.characters
        sax.cdataBlock = { ctx, chars, length in
            XMLPlistParseState.with(ctx) { state, ctxt in state.parser.cdata(ctxt, chars!, Int(length)) }
        }
        sax.comment = { ctx, _ in
            XMLPlistParseState.with(ctx) { state, ctxt in state.parser.markupInsideValue(ctxt, "a comment") }
        }
        sax.processingInstruction = { ctx, _, _ in
            XMLPlistParseState.with(ctx) { state, ctxt in state.parser.markupInsideValue(ctxt, "a processing instruction") }
        }
        sax.getEntity = { _, _ in nil }
        sax.reference = { ctx, name in
            let entity = name.map { String(cString: $0) } ?? ""
            XMLPlistParseState.with(ctx) { state, ctxt in
                state.parser.fail(ctxt, "entity reference '&\(entity);' is not allowed")
            }
        }
        sax.entityDecl = { ctx, name, _, _, _, _ in
            XMLPlistParseState.with(ctx) { state, ctxt in
                let entity = name.map { String(cString: $0) } ?? ""
                state.parser.fail(ctxt, "the DOCTYPE declares entity '\(entity)'; entity declarations are not allowed")
            }
        }
        sax.elementDecl = { ctx, _, _, _ in
            XMLPlistParseState.with(ctx) { state, ctxt in
                state.parser.fail(ctxt, "the DOCTYPE has an internal subset; internal subsets are not allowed")
            }
        }
        sax.attributeDecl = { ctx, _, _, _, _, _, _ in
            XMLPlistParseState.with(ctx) { state, ctxt in
                state.parser.fail(ctxt, "the DOCTYPE has an internal subset; internal subsets are not allowed")
            }
        }
        sax.notationDecl = { ctx, _, _, _ in
            XMLPlistParseState.with(ctx) { state, ctxt in
                state.parser.fail(ctxt, "the DOCTYPE has an internal subset; internal subsets are not allowed")
            }
        }
        sax.unparsedEntityDecl = { ctx, _, _, _, _ in
            XMLPlistParseState.with(ctx) { state, ctxt in
                state.parser.fail(ctxt, "the DOCTYPE declares an entity; entity declarations are not allowed")
            }
        }
        sax.serror = { ctx, errorPointer in
            guard let ctx, let errorPointer else { return }
            let xmlError = errorPointer.pointee
            guard xmlError.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
            let message = oneLine(xmlError)
            XMLPlistParseState.with(ctx) { state, _ in
                guard !state.parser.failed else { return }
                state.parser.error = Diagnostic.plist(
                    .malformed, "XML: \(message)",
                    at: .line(Int(xmlError.line), column: Int(xmlError.int2)))
            }
        }
        return sax
    }()
}

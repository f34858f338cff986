import CLibXML2
import Foundation

/// Reads Apple's XML property lists through libxml2's SAX2 interface.
///
/// The parser never touches the network, never loads a DTD and never expands an entity:
/// a document that declares entities or other markup in a DOCTYPE internal subset is
/// rejected before anything is expanded. Errors carry line:column.
public struct XMLPlistReader {
    public var limits: PlistLimits

    public init(limits: PlistLimits = .default) { self.limits = limits }

    public func read(_ bytes: Data) throws -> PlistValue {
        let builder = PlistTreeBuilder()
        try read(bytes, into: builder)
        guard let root = builder.root else { throw PlistError(.malformed, "the document holds no plist value") }
        return root
    }

    /// Parses `bytes`, sending each value to `sink` as it is read.
    public func read(_ bytes: Data, into sink: PlistEventSink) throws {
        guard bytes.count < Int(Int32.max) else {
            throw PlistError(.limitExceeded, "XML plists over 2 GiB are not supported")
        }
        let state = XMLPlistParseState(limits: limits, sink: sink)
        let stateRef = Unmanaged.passRetained(state)
        defer { stateRef.release() }

        try bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let base = raw.baseAddress?.assumingMemoryBound(to: CChar.self) ?? UnsafePointer<CChar>(bitPattern: 1)!
            guard let ctxt = xmlCreateMemoryParserCtxt(base, Int32(raw.count)) else {
                throw PlistError(.io, "libxml2 could not create a parser")
            }
            defer {
                if let doc = ctxt.pointee.myDoc { xmlFreeDoc(doc) }
                xmlFreeParserCtxt(ctxt)
            }
            ctxt.pointee.sax.pointee = XMLPlistParseState.handler
            ctxt.pointee._private = UnsafeMutableRawPointer(stateRef.toOpaque())
            let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_HUGE.rawValue | XML_PARSE_NOCDATA.rawValue)
            _ = xmlCtxtUseOptions(ctxt, options)
            // xmlCtxtUseOptions may reset these; keep entity substitution and DTD loading off.
            ctxt.pointee.replaceEntities = 0
            ctxt.pointee.loadsubset = 0
            ctxt.pointee.validate = 0
            _ = xmlParseDocument(ctxt)
            if state.error == nil && ctxt.pointee.wellFormed == 0 {
                state.error = PlistError(.malformed, "the XML is not well-formed")
            }
            if state.error == nil { state.finish(ctxt) }
        }
        if let error = state.error { throw error }
    }
}

/// The mutable state of one XML parse, reached from libxml2's C callbacks through `_private`.
/// It checks the plist structure and turns elements into events for its sink.
final class XMLPlistParseState {
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
    var text: [UInt8] = []
    var valueCount = 0
    var keys = DuplicateKeyDetector()
    var error: PlistError?

    init(limits: PlistLimits, sink: PlistEventSink) {
        self.limits = limits
        self.sink = sink
    }

    static func from(_ ctx: UnsafeMutableRawPointer?) -> (XMLPlistParseState, xmlParserCtxtPtr) {
        let ctxt = ctx!.assumingMemoryBound(to: xmlParserCtxt.self)
        let state = Unmanaged<XMLPlistParseState>.fromOpaque(ctxt.pointee._private!).takeUnretainedValue()
        return (state, ctxt)
    }

    func fail(_ ctxt: xmlParserCtxtPtr, _ message: String) { fail(ctxt, .malformed, message) }

    /// Records the first error at the parser's current position and stops the parse.
    func fail(_ ctxt: xmlParserCtxtPtr, _ kind: PlistError.Kind, _ message: String) {
        guard error == nil else { return }
        let line = Int(xmlSAX2GetLineNumber(ctxt))
        let column = Int(xmlSAX2GetColumnNumber(ctxt))
        error = PlistError(kind, message, at: .line(line, column: column))
        xmlStopParser(ctxt)
    }

    /// Runs a sink call, turning a thrown error into a located parse failure.
    func emit(_ ctxt: xmlParserCtxtPtr, _ call: () throws -> Void) {
        do { try call() } catch let sinkError as PlistError {
            fail(ctxt, sinkError.kind, sinkError.message)
        } catch {
            fail(ctxt, .io, "\(error)")
        }
    }

    static func element(named name: UnsafePointer<xmlChar>) -> Element? {
        let length = strlen(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self))
        let bytes = UnsafeBufferPointer(start: name, count: length)
        switch length {
        case 3: if bytes.elementsEqual("key".utf8) { return .key }
        case 4:
            if bytes.elementsEqual("dict".utf8) { return .dict }
            if bytes.elementsEqual("real".utf8) { return .real }
            if bytes.elementsEqual("date".utf8) { return .date }
            if bytes.elementsEqual("data".utf8) { return .data }
            if bytes.elementsEqual("true".utf8) { return .true }
        case 5:
            if bytes.elementsEqual("array".utf8) { return .array }
            if bytes.elementsEqual("plist".utf8) { return .plist }
            if bytes.elementsEqual("false".utf8) { return .false }
        case 6: if bytes.elementsEqual("string".utf8) { return .string }
        case 7: if bytes.elementsEqual("integer".utf8) { return .integer }
        default: break
        }
        return nil
    }

    func startElement(_ ctxt: xmlParserCtxtPtr, _ name: UnsafePointer<xmlChar>) {
        guard error == nil else { return }
        guard let element = XMLPlistParseState.element(named: name) else {
            fail(ctxt, "unknown element <\(String(cString: name))>")
            return
        }
        if let scalar {
            fail(ctxt, "<\(String(cString: name))> is not allowed inside <\(scalar)>")
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
                emit(ctxt) { try sink.beginDictionary() }
                frames.append(.dictionary(hasPendingKey: false))
            } else {
                emit(ctxt) { try sink.beginArray() }
                frames.append(.array)
            }
        default:
            scalar = element
            text.removeAll(keepingCapacity: true)
        }
    }

    func endElement(_ ctxt: xmlParserCtxtPtr, _ name: UnsafePointer<xmlChar>) {
        guard error == nil else { return }
        if let element = scalar {
            scalar = nil
            if element == .key {
                let isNew = text.withUnsafeBytes { keys.insert($0) }
                guard isNew else {
                    fail(ctxt, "key '\(String(decoding: text, as: UTF8.self))' appears twice in the same <dict>")
                    return
                }
                emit(ctxt) { try text.withUnsafeBytes { try sink.key($0) } }
                frames[frames.count - 1] = .dictionary(hasPendingKey: true)
                return
            }
            countValue(ctxt)
            emitScalar(element, ctxt)
            valueDone()
            return
        }
        guard let frame = frames.popLast() else { return }
        switch frame {
        case .plist(let hasValue, _):
            guard hasValue else { fail(ctxt, "<plist> holds no value"); return }
            finishedRoot = true
        case .array:
            emit(ctxt) { try sink.endContainer() }
            valueDone()
        case .dictionary(let hasPendingKey):
            if hasPendingKey {
                fail(ctxt, "key '\(keys.lastKey)' has no value before </dict>")
                return
            }
            keys.endDictionary()
            emit(ctxt) { try sink.endContainer() }
            valueDone()
        }
    }

    private func countValue(_ ctxt: xmlParserCtxtPtr) {
        valueCount += 1
        if valueCount > limits.maxValues { fail(ctxt, .limitExceeded, "more than \(limits.maxValues) values") }
    }

    /// Marks the innermost container as having received a value.
    private func valueDone() {
        guard let top = frames.indices.last else { return }
        switch frames[top] {
        case .plist(_, let implicit): frames[top] = .plist(hasValue: true, implicit: implicit)
        case .dictionary: frames[top] = .dictionary(hasPendingKey: false)
        case .array: break
        }
    }

    private func trimmedText() -> Substring {
        var start = 0
        var end = text.count
        while start < end, isXMLSpace(text[start]) { start += 1 }
        while end > start, isXMLSpace(text[end - 1]) { end -= 1 }
        return Substring(String(decoding: text[start..<end], as: UTF8.self))
    }

    private func isXMLSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    private func emitScalar(_ element: Element, _ ctxt: xmlParserCtxtPtr) {
        switch element {
        case .string:
            emit(ctxt) { try text.withUnsafeBytes { try sink.string($0) } }
        case .integer:
            let body = trimmedText()
            guard let value = PlistInteger(parsing: body) else {
                fail(ctxt, "'\(body)' is not an integer from -2^63 to 2^64-1")
                return
            }
            emit(ctxt) { try sink.integer(value) }
        case .real:
            let body = trimmedText()
            guard let value = XMLPlistParseState.parseReal(body) else {
                fail(ctxt, "'\(body)' is not a real number")
                return
            }
            emit(ctxt) { try sink.real(value) }
        case .date:
            let body = trimmedText()
            guard let value = PlistDate(iso8601: body) else {
                fail(ctxt, "'\(body)' is not a date of the form YYYY-MM-DDTHH:MM:SSZ")
                return
            }
            emit(ctxt) { try sink.date(value) }
        case .data:
            switch Base64.decode(text) {
            case .success(let data): emit(ctxt) { try data.withUnsafeBytes { try sink.data($0) } }
            case .failure(let failure):
                let what = failure.byte.map { "the character '\(String(UnicodeScalar($0)))'" } ?? "a truncated group"
                fail(ctxt, "<data> is not valid base64: \(what) at offset \(failure.offset) of its text")
            }
        case .true, .false:
            guard trimmedText().isEmpty else {
                fail(ctxt, "<\(element)/> must be empty")
                return
            }
            emit(ctxt) { try sink.bool(element == .true) }
        case .plist, .dict, .array, .key:
            break
        }
    }

    /// Parses a `<real>`: decimal or exponent notation, `nan`, `inf`, `infinity` with a sign.
    static func parseReal(_ text: Substring) -> Double? {
        guard !text.isEmpty else { return nil }
        switch text.lowercased() {
        case "nan", "+nan", "-nan": return .nan
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default: break
        }
        for unit in text.utf8 {
            switch unit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"),
                UInt8(ascii: "+"), UInt8(ascii: "-"):
                continue
            default:
                return nil
            }
        }
        return Double(text)
    }

    func characters(_ ctxt: xmlParserCtxtPtr, _ chars: UnsafePointer<xmlChar>, _ length: Int) {
        guard error == nil else { return }
        let bytes = UnsafeBufferPointer(start: chars, count: length)
        if scalar != nil {
            text.append(contentsOf: bytes)
        } else if bytes.contains(where: { !isXMLSpace($0) }) {
            fail(ctxt, "text outside a value element")
        }
    }

    /// Checks the end state: a document whose root is a value element leaves its implicit frame open.
    func finish(_ ctxt: xmlParserCtxtPtr) {
        if !finishedRoot, frames.count == 1, case .plist(true, true) = frames[0] { finishedRoot = true }
        if !finishedRoot && error == nil { error = PlistError(.malformed, "the document holds no plist value") }
    }

    static let handler: xmlSAXHandler = {
        var sax = xmlSAXHandler()
        sax.initialized = XML_SAX2_MAGIC
        sax.startElementNs = { ctx, localname, _, _, _, _, _, _, _ in
            let (state, ctxt) = XMLPlistParseState.from(ctx)
            state.startElement(ctxt, localname!)
        }
        sax.endElementNs = { ctx, localname, _, _ in
            let (state, ctxt) = XMLPlistParseState.from(ctx)
            state.endElement(ctxt, localname!)
        }
        sax.characters = { ctx, chars, length in
            let (state, ctxt) = XMLPlistParseState.from(ctx)
            state.characters(ctxt, chars!, Int(length))
        }
        sax.ignorableWhitespace = sax.characters
        sax.cdataBlock = sax.characters
        sax.getEntity = { _, _ in nil }
        sax.reference = { ctx, name in
            let (state, ctxt) = XMLPlistParseState.from(ctx)
            state.fail(ctxt, "entity reference '&\(name.map { String(cString: $0) } ?? "");' is not allowed")
        }
        sax.entityDecl = { ctx, name, _, _, _, _ in
            let (state, ctxt) = XMLPlistParseState.from(ctx)
            let entity = name.map { String(cString: $0) } ?? ""
            state.fail(ctxt, "the DOCTYPE declares entity '\(entity)'; entity declarations are not allowed")
        }
        sax.elementDecl = { ctx, _, _, _ in
            let (state, ctxt) = XMLPlistParseState.from(ctx)
            state.fail(ctxt, "the DOCTYPE has an internal subset; internal subsets are not allowed")
        }
        sax.attributeDecl = { ctx, _, _, _, _, _, _ in
            let (state, ctxt) = XMLPlistParseState.from(ctx)
            state.fail(ctxt, "the DOCTYPE has an internal subset; internal subsets are not allowed")
        }
        sax.notationDecl = { ctx, _, _, _ in
            let (state, ctxt) = XMLPlistParseState.from(ctx)
            state.fail(ctxt, "the DOCTYPE has an internal subset; internal subsets are not allowed")
        }
        sax.unparsedEntityDecl = { ctx, _, _, _, _ in
            let (state, ctxt) = XMLPlistParseState.from(ctx)
            state.fail(ctxt, "the DOCTYPE declares an entity; entity declarations are not allowed")
        }
        sax.serror = { ctx, errorPointer in
            guard let ctx, let errorPointer else { return }
            let (state, _) = XMLPlistParseState.from(ctx)
            let xmlError = errorPointer.pointee
            guard state.error == nil, xmlError.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
            var message = xmlError.message.map { String(cString: $0) } ?? "XML error"
            while message.last?.isWhitespace == true { message.removeLast() }
            state.error = PlistError(.malformed, "XML: \(message)",
                                     at: .line(Int(xmlError.line), column: Int(xmlError.int2)))
        }
        return sax
    }()
}

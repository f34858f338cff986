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
        guard bytes.count < Int(Int32.max) else {
            throw PlistError(.limitExceeded, "XML plists over 2 GiB are not supported")
        }
        let state = XMLPlistParseState(limits: limits)
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
        }
        if let error = state.error { throw error }
        return try state.finish()
    }
}

/// The mutable state of one XML parse, reached from libxml2's C callbacks through `_private`.
final class XMLPlistParseState {
    enum Element: UInt8 {
        case plist, dict, array, key, string, integer, real, date, data, `true`, `false`
    }

    enum Frame {
        case plist(PlistValue?)
        case array([PlistValue])
        case dictionary(PlistDictionary, pendingKey: String?)
    }

    let limits: PlistLimits
    var frames: [Frame] = []
    var root: PlistValue?
    var sawRootElement = false
    /// The scalar element being read and its text so far.
    var scalar: Element?
    var text: [UInt8] = []
    var valueCount = 0
    var error: PlistError?

    init(limits: PlistLimits) { self.limits = limits }

    static func from(_ ctx: UnsafeMutableRawPointer?) -> (XMLPlistParseState, xmlParserCtxtPtr) {
        let ctxt = ctx!.assumingMemoryBound(to: xmlParserCtxt.self)
        let state = Unmanaged<XMLPlistParseState>.fromOpaque(ctxt.pointee._private!).takeUnretainedValue()
        return (state, ctxt)
    }

    /// Records the first error at the parser's current position and stops the parse.
    func fail(_ ctxt: xmlParserCtxtPtr, _ message: String) { fail(ctxt, .malformed, message) }

    func fail(_ ctxt: xmlParserCtxtPtr, _ kind: PlistError.Kind, _ message: String) {
        guard error == nil else { return }
        let line = Int(xmlSAX2GetLineNumber(ctxt))
        let column = Int(xmlSAX2GetColumnNumber(ctxt))
        error = PlistError(kind, message, at: .line(line, column: column))
        xmlStopParser(ctxt)
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
            frames.append(.plist(nil))
            return
        }
        if frames.isEmpty {
            if sawRootElement { fail(ctxt, "content after the root element"); return }
            sawRootElement = true
            frames.append(.plist(nil))
        }
        if element == .key {
            guard case .dictionary(_, let pending) = frames[frames.count - 1] else {
                fail(ctxt, "<key> outside a <dict>")
                return
            }
            if let pending {
                fail(ctxt, "key '\(pending)' has no value before the next <key>")
                return
            }
        } else if case .dictionary(_, nil) = frames[frames.count - 1] {
            fail(ctxt, "<\(element)> in a <dict> without a <key> before it")
            return
        } else if case .plist(.some) = frames[frames.count - 1] {
            fail(ctxt, "<plist> holds more than one root value")
            return
        }
        switch element {
        case .dict, .array:
            if frames.count > limits.maxDepth {
                fail(ctxt, .limitExceeded, "nesting deeper than \(limits.maxDepth) levels")
                return
            }
            frames.append(element == .dict ? .dictionary(PlistDictionary(), pendingKey: nil) : .array([]))
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
                let key = String(decoding: text, as: UTF8.self)
                guard case .dictionary(let dict, nil) = frames[frames.count - 1] else { return }
                if dict.contains(key) {
                    fail(ctxt, "key '\(key)' appears twice in the same <dict>")
                    return
                }
                frames[frames.count - 1] = .dictionary(dict, pendingKey: key)
                return
            }
            guard let value = scalarValue(element, ctxt) else { return }
            add(value, ctxt)
            return
        }
        guard let frame = frames.popLast() else { return }
        switch frame {
        case .plist(let value):
            guard let value else { fail(ctxt, "<plist> holds no value"); return }
            root = value
        case .array(let items):
            add(.array(items), ctxt)
        case .dictionary(let dict, let pending):
            if let pending {
                fail(ctxt, "key '\(pending)' has no value before </dict>")
                return
            }
            add(.dictionary(dict), ctxt)
        }
    }

    private func add(_ value: PlistValue, _ ctxt: xmlParserCtxtPtr) {
        valueCount += 1
        if valueCount > limits.maxValues {
            fail(ctxt, .limitExceeded, "more than \(limits.maxValues) values")
            return
        }
        guard !frames.isEmpty else { root = value; return }
        switch frames[frames.count - 1] {
        case .plist:
            frames[frames.count - 1] = .plist(value)
        case .array(var items):
            frames[frames.count - 1] = .plist(nil)  // drop the frame's reference so `items` is unique
            items.append(value)
            frames[frames.count - 1] = .array(items)
        case .dictionary(var dict, let pending):
            frames[frames.count - 1] = .plist(nil)
            dict.append(pending!, value)
            frames[frames.count - 1] = .dictionary(dict, pendingKey: nil)
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

    private func scalarValue(_ element: Element, _ ctxt: xmlParserCtxtPtr) -> PlistValue? {
        switch element {
        case .string:
            return .string(String(decoding: text, as: UTF8.self))
        case .integer:
            let body = trimmedText()
            guard let value = PlistInteger(parsing: body) else {
                fail(ctxt, "'\(body)' is not an integer from -2^63 to 2^64-1")
                return nil
            }
            return .integer(value)
        case .real:
            let body = trimmedText()
            guard let value = XMLPlistParseState.parseReal(body) else {
                fail(ctxt, "'\(body)' is not a real number")
                return nil
            }
            return .real(value)
        case .date:
            let body = trimmedText()
            guard let value = PlistDate(iso8601: body) else {
                fail(ctxt, "'\(body)' is not a date of the form YYYY-MM-DDTHH:MM:SSZ")
                return nil
            }
            return .date(value)
        case .data:
            switch Base64.decode(text) {
            case .success(let data): return .data(data)
            case .failure(let failure):
                let what = failure.byte.map { "the character '\(String(UnicodeScalar($0)))'" } ?? "a truncated group"
                fail(ctxt, "<data> is not valid base64: \(what) at offset \(failure.offset) of its text")
                return nil
            }
        case .true, .false:
            guard trimmedText().isEmpty else {
                fail(ctxt, "<\(element)/> must be empty")
                return nil
            }
            return .bool(element == .true)
        case .plist, .dict, .array, .key:
            return nil
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

    func finish() throws -> PlistValue {
        // A document whose root is a value element rather than <plist> leaves its implicit frame open.
        if root == nil, frames.count == 1, case .plist(let value) = frames[0] { root = value }
        guard let root else { throw PlistError(.malformed, "the document holds no plist value") }
        return root
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

import CLibCrypto

/// Where one BER or DER element lies in a byte buffer, found with libcrypto's `ASN1_get_object`
/// (which reads the tag and length and checks them against the bytes left).
///
/// This only locates bytes; it decodes no values. Lengths are checked against the enclosing element,
/// and an indefinite-length element (`30 80 … 00 00`, as Apple's signer writes the outer layers of
/// its CMS) is measured by walking its children to the end-of-contents marker, at most
/// ``maximumDepth`` levels deep.
struct BERElement: Equatable {
    /// The tag number and class (`V_ASN1_UNIVERSAL`, `V_ASN1_CONTEXT_SPECIFIC`, …).
    var tag: Int32
    var tagClass: Int32
    var isConstructed: Bool
    var isIndefinite: Bool
    /// The offset of the first tag byte.
    var start: Int
    /// The offsets where the content begins and ends (for the indefinite form, where the
    /// end-of-contents marker begins).
    var contentStart: Int
    var contentEnd: Int
    /// The offset just past the element (past the end-of-contents marker for the indefinite form).
    var end: Int

    /// How deeply indefinite-length elements may nest before the input is refused.
    static let maximumDepth = 32

    /// Whether this is the end-of-contents marker `00 00`.
    var isEndOfContents: Bool {
        tag == 0 && tagClass == V_ASN1_UNIVERSAL && !isConstructed && !isIndefinite && contentStart == contentEnd
    }

    /// Whether this is a universal constructed element with tag `tag` (`V_ASN1_SEQUENCE`, `V_ASN1_SET`).
    func isUniversal(_ tag: Int32) -> Bool { tagClass == V_ASN1_UNIVERSAL && isConstructed && self.tag == tag }

    /// Whether this is a constructed context-specific element `[tag]`.
    func isContext(_ tag: Int32) -> Bool { tagClass == V_ASN1_CONTEXT_SPECIFIC && isConstructed && self.tag == tag }

    /// Reads the element starting at `offset`, which must end by `limit`; nil when the header is
    /// malformed, a length runs past `limit`, or indefinite elements nest too deeply.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, limit: Int, depth: Int = 0) -> BERElement? {
        guard depth <= maximumDepth, offset >= 0, offset < limit, limit <= bytes.count, let base = bytes.baseAddress else { return nil }
        var cursor: UnsafePointer<UInt8>? = base + offset
        var length = 0
        var tag: Int32 = 0
        var tagClass: Int32 = 0
        let flags = ASN1_get_object(&cursor, &length, &tag, &tagClass, limit - offset)
        // 0x80 marks a malformed header or a length past `limit`; libcrypto queues an error for it.
        guard flags & 0x80 == 0, let cursor else {
            ERR_clear_error()
            return nil
        }
        let contentStart = cursor - base
        guard contentStart > offset, contentStart <= limit else { return nil }
        var element = BERElement(
            tag: tag, tagClass: tagClass, isConstructed: flags & V_ASN1_CONSTRUCTED != 0, isIndefinite: flags & 0x01 != 0,
            start: offset, contentStart: contentStart, contentEnd: contentStart, end: contentStart)
        if !element.isIndefinite {
            guard length >= 0, length <= limit - contentStart else { return nil }
            element.contentEnd = contentStart + length
            element.end = element.contentEnd
            return element
        }
        // Indefinite form: the children run up to an end-of-contents marker.
        var position = contentStart
        while true {
            guard let child = read(bytes, at: position, limit: limit, depth: depth + 1) else { return nil }
            if child.isEndOfContents {
                element.contentEnd = position
                element.end = child.end
                return element
            }
            position = child.end
        }
    }

    /// The elements inside this constructed element, in order; nil when one is malformed or this
    /// element is primitive.
    func children(_ bytes: UnsafeBufferPointer<UInt8>, depth: Int = 0) -> [BERElement]? {
        guard isConstructed else { return nil }
        var out: [BERElement] = []
        var position = contentStart
        while position < contentEnd {
            guard let child = BERElement.read(bytes, at: position, limit: contentEnd, depth: depth + 1) else { return nil }
            out.append(child)
            position = child.end
        }
        return out
    }
}

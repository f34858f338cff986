import CLibXML2
import Foundation

/// An element of an S3 XML answer (`ListBucketResult`, `Error`, …): its name, its text and its
/// child elements. Read through libxml2 without network access or entity expansion.
struct XMLTree: Sendable, Equatable {
    let name: String
    let text: String
    let children: [XMLTree]

    /// The document element of `data`, or nil when it is not well-formed XML.
    static func parse(_ data: Data) -> XMLTree? {
        guard !data.isEmpty else { return nil }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let document = data.withUnsafeBytes { raw in
            xmlReadMemory(raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(raw.count), nil, nil, options)
        }
        guard let document else { return nil }
        defer { xmlFreeDoc(document) }
        guard let root = xmlDocGetRootElement(document) else { return nil }
        return element(root)
    }

    private static func element(_ node: xmlNodePtr) -> XMLTree {
        var children: [XMLTree] = []
        var text = ""
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_ELEMENT_NODE: children.append(element(current))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content { text += String(cString: content) }
            default: break
            }
            child = current.pointee.next
        }
        let name = node.pointee.name.map { String(cString: $0) } ?? ""
        return XMLTree(name: name, text: text, children: children)
    }

    /// The first child element named `name`.
    func child(_ name: String) -> XMLTree? { children.first { $0.name == name } }

    /// Every child element named `name`.
    func children(_ name: String) -> [XMLTree] { children.filter { $0.name == name } }

    /// The text of the first child element named `name`.
    func value(_ name: String) -> String? { child(name)?.text }
}

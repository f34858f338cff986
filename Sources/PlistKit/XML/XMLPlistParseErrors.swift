import CLibXML2
import Foundation
import SystemSupport

/// How libxml2's own errors become the parse's one error, so libxml2 never prints a line itself.
extension XMLPlistParseState {
    /// The thread's structured error handler while a document is parsed: an error libxml2 raises
    /// without a parser (`encoding error : input conversion failed …`, `I/O error : encoder error`)
    /// becomes the parse's error, at the parser's position, unless it has one already.
    static let unattachedError: xmlStructuredErrorFunc = { box, errorPointer in
        guard let box, let errorPointer else { return }
        let xmlError = errorPointer.pointee
        guard xmlError.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        let message = oneLine(xmlError)
        Unmanaged<XMLPlistParseBox>.fromOpaque(box)._withUnsafeGuaranteedRef { state in
            guard !state.parser.failed else { return }
            let domain = xmlError.domain == Int32(XML_FROM_I18N.rawValue) ? "encoding error: " : ""
            guard let ctxt = state.context else {
                state.parser.error = Diagnostic.plist(.malformed, "XML: \(domain)\(message)")
                return
            }
            state.parser.error = Diagnostic.plist(
                .malformed, "XML: \(domain)\(message)",
                at: .line(Int(xmlSAX2GetLineNumber(ctxt)), column: Int(xmlSAX2GetColumnNumber(ctxt))))
        }
    }

    /// libxml2's message as one line: detail it puts on a second line (such as the bytes of bad
    /// UTF-8) in parentheses, trailing blanks dropped.
    static func oneLine(_ xmlError: xmlError) -> String {
        var message = xmlError.message.map { String(cString: $0) } ?? "XML error"
        if let newline = message.firstIndex(of: "\n") {
            let detail = message[message.index(after: newline)...].trimmingCharacters(in: .whitespacesAndNewlines)
            message = String(message[..<newline]) + (detail.isEmpty ? "" : " (\(detail))")
        }
        while message.last?.isWhitespace == true { message.removeLast() }
        return message
    }
}

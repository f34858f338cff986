import Foundation

/// Release notes in plain text turned into safe HTML: blank lines separate paragraphs, lines
/// starting with `- ` or `* ` make lists, and http(s) addresses become links. Everything is
/// escaped; no HTML in the notes survives as markup.
public enum ReleaseNotes {
    public static func html(_ text: String) -> String {
        var blocks: [String] = []
        var paragraph: [String] = []
        var items: [String] = []
        func flush() {
            if !paragraph.isEmpty { blocks.append("<p>" + paragraph.map(inline).joined(separator: "<br>") + "</p>"); paragraph = [] }
            if !items.isEmpty { blocks.append("<ul>" + items.map { "<li>" + inline($0) + "</li>" }.joined() + "</ul>"); items = [] }
        }
        for rawLine in text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { flush(); continue }
            if line.hasPrefix("- ") || line.hasPrefix("* ") {
                if !paragraph.isEmpty { flush() }
                items.append(String(line.dropFirst(2)))
            } else {
                if !items.isEmpty { flush() }
                paragraph.append(line)
            }
        }
        flush()
        return blocks.joined(separator: "\n")
    }

    /// Escapes a line and turns http(s) addresses into links (the address escaped in both places).
    static func inline(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let start = rest.range(of: "https://") ?? rest.range(of: "http://") {
            out += HTML.escape(String(rest[..<start.lowerBound]))
            var end = start.upperBound
            while end < rest.endIndex, !rest[end].isWhitespace, !"<>\"'".contains(rest[end]) { end = rest.index(after: end) }
            var url = String(rest[start.lowerBound..<end])
            var trailing = ""
            while let last = url.last, ".,;:!?)".contains(last) { trailing = String(last) + trailing; url.removeLast() }
            out += "<a href=\"\(HTML.escape(url))\" rel=\"noopener noreferrer\">\(HTML.escape(url))</a>" + HTML.escape(trailing)
            rest = rest[end...]
        }
        return out + HTML.escape(String(rest))
    }
}

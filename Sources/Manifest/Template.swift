import Foundation
import SystemSupport

/// A value templates render: text, a flag, a list or a record.
public indirect enum TemplateValue: Sendable, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    case text(String)
    case flag(Bool)
    case list([TemplateValue])
    case record([String: TemplateValue])

    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .flag(value) }
    public init(arrayLiteral elements: TemplateValue...) { self = .list(elements) }
    public init(dictionaryLiteral elements: (String, TemplateValue)...) {
        self = .record(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// Whether a section over this value renders: true, non-empty text or list, any record.
    var isTruthy: Bool {
        switch self {
        case .text(let text): return !text.isEmpty
        case .flag(let flag): return flag
        case .list(let items): return !items.isEmpty
        case .record: return true
        }
    }

    var text: String {
        switch self {
        case .text(let text): return text
        case .flag(let flag): return flag ? "true" : ""
        case .list, .record: return ""
        }
    }
}

/// A small Mustache: `{{name}}` (HTML-escaped), `{{{name}}}` and `{{& name}}` (raw), `{{#name}}…{{/name}}`
/// (sections: shown for true, non-empty text or record, repeated for each list item),
/// `{{^name}}…{{/name}}` (inverted), `{{> partial}}`, `{{! comment}}`, dotted names and `{{.}}`.
///
/// A template is parsed once into nodes; errors name the template and line.
public struct Template: Sendable {
    indirect enum Node: Sendable {
        case text(String)
        case variable(String, escaped: Bool)
        case section(String, inverted: Bool, [Node])
        case partial(String)
    }

    public let name: String
    let nodes: [Node]

    public init(name: String, source: String) throws {
        self.name = name
        var parser = TemplateParser(name: name, source: source)
        nodes = try parser.parse()
    }

    /// Renders with `context`, finding partials in `partials` (by name, without extension).
    public func render(_ context: TemplateValue, partials: [String: Template] = [:]) throws -> String {
        var out = ""
        try Template.render(nodes, stack: [context], partials: partials, into: &out, depth: 0, name: name)
        return out
    }

    static func lookup(_ name: String, in stack: [TemplateValue]) -> TemplateValue? {
        if name == "." { return stack.last }
        let parts = name.split(separator: ".").map(String.init)
        guard let first = parts.first else { return nil }
        for context in stack.reversed() {
            guard case .record(let record) = context, var value = record[first] else { continue }
            for part in parts.dropFirst() {
                guard case .record(let nested) = value, let next = nested[part] else { return nil }
                value = next
            }
            return value
        }
        return nil
    }

    static func render(
        _ nodes: [Node], stack: [TemplateValue], partials: [String: Template], into out: inout String,
        depth: Int, name: String
    ) throws {
        guard depth < 32 else {
            throw Diagnostic.manifest(.template, "\(name): partials nest deeper than 32 levels (a partial includes itself?)")
        }
        for node in nodes {
            switch node {
            case .text(let text): out += text
            case .variable(let variable, let escaped):
                let text = lookup(variable, in: stack)?.text ?? ""
                out += escaped ? HTML.escape(text) : text
            case .section(let variable, let inverted, let children):
                let value = lookup(variable, in: stack)
                let truthy = value?.isTruthy ?? false
                if inverted {
                    if !truthy { try render(children, stack: stack, partials: partials, into: &out, depth: depth, name: name) }
                } else if truthy, let value {
                    if case .list(let items) = value {
                        for item in items {
                            try render(children, stack: stack + [item], partials: partials, into: &out, depth: depth, name: name)
                        }
                    } else {
                        try render(children, stack: stack + [value], partials: partials, into: &out, depth: depth, name: name)
                    }
                }
            case .partial(let partial):
                guard let template = partials[partial] else {
                    throw Diagnostic.manifest(.template, "\(name): no partial named '\(partial)'")
                }
                try render(template.nodes, stack: stack, partials: partials, into: &out, depth: depth + 1, name: template.name)
            }
        }
    }
}

struct TemplateParser {
    let name: String
    let source: [Character]
    var index = 0

    init(name: String, source: String) {
        self.name = name
        self.source = Array(source)
    }

    func line(at position: Int) -> Int { source[0..<min(position, source.count)].filter { $0 == "\n" }.count + 1 }

    func failure(_ message: String, at position: Int) -> Diagnostic {
        Diagnostic.manifest(.template, "\(name):\(line(at: position)): \(message)")
    }

    /// Whether `text` appears at `position`, compared in place (this runs at every position).
    func starts(with text: String, at position: Int) -> Bool {
        var cursor = position
        for character in text {
            guard cursor < source.count, source[cursor] == character else { return false }
            cursor += 1
        }
        return true
    }

    /// A tag's name: `.`, or names joined by single dots (`app.name`), without spaces.
    func name(_ text: String, at position: Int) throws -> String {
        let name = text.trimmingCharacters(in: .whitespaces)
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard name == "." || (!name.isEmpty && parts.allSatisfy { !$0.isEmpty && !$0.contains(where: \.isWhitespace) }) else {
            throw failure(
                name.isEmpty ? "a tag without a name" : "'\(name)' is not a tag name (names joined by single dots)",
                at: position)
        }
        return name
    }

    mutating func parse() throws -> [Template.Node] {
        var stack: [(name: String, inverted: Bool, nodes: [Template.Node], start: Int)] = [("", false, [], 0)]
        var text = ""
        func flushText() {
            if !text.isEmpty { stack[stack.count - 1].nodes.append(.text(text)); text = "" }
        }
        while index < source.count {
            guard starts(with: "{{", at: index) else {
                text.append(source[index])
                index += 1
                continue
            }
            let tagStart = index
            let triple = starts(with: "{{{", at: index)
            let close = triple ? "}}}" : "}}"
            var end = index + (triple ? 3 : 2)
            while end < source.count && !starts(with: close, at: end) { end += 1 }
            guard end < source.count else { throw failure("unclosed tag", at: tagStart) }
            var body = String(source[(index + (triple ? 3 : 2))..<end]).trimmingCharacters(in: .whitespaces)
            index = end + close.count
            flushText()
            if triple {
                stack[stack.count - 1].nodes.append(.variable(try name(body, at: tagStart), escaped: false))
                continue
            }
            guard let sigil = body.first else { throw failure("empty tag", at: tagStart) }
            switch sigil {
            case "!": continue
            case "&":
                body.removeFirst()
                stack[stack.count - 1].nodes.append(.variable(try name(body, at: tagStart), escaped: false))
            case "#", "^":
                body.removeFirst()
                stack.append((try name(body, at: tagStart), sigil == "^", [], tagStart))
            case "/":
                body.removeFirst()
                let closing = try name(body, at: tagStart)
                guard stack.count > 1 else { throw failure("'{{/\(closing)}}' closes no section", at: tagStart) }
                let open = stack.removeLast()
                guard open.name == closing else {
                    throw failure("'{{/\(closing)}}' closes '\(open.name)', opened on line \(line(at: open.start))", at: tagStart)
                }
                stack[stack.count - 1].nodes.append(.section(open.name, inverted: open.inverted, open.nodes))
            case ">":
                body.removeFirst()
                stack[stack.count - 1].nodes.append(.partial(try name(body, at: tagStart)))
            default:
                stack[stack.count - 1].nodes.append(.variable(try name(body, at: tagStart), escaped: true))
            }
        }
        flushText()
        guard stack.count == 1 else {
            let open = stack.last!
            throw failure("section '\(open.name)' is never closed", at: open.start)
        }
        return stack[0].nodes
    }
}

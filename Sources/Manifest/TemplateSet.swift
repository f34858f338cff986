import Foundation
import PlistKit
import SystemSupport

/// The page templates: the defaults compiled into the binary, each replaceable by a file of
/// the same name (`page.mustache`, `index.mustache`, `style.mustache`, …) in a team's folder.
public struct TemplateSet: Sendable {
    public let templates: [String: Template]

    /// The defaults, with any `*.mustache` in `folder` taking their place.
    public init(folder: String? = nil) throws {
        var sources = DefaultTemplates.sources.mapValues { ($0, "built-in") }
        if let folder {
            guard FileIO.kind(of: folder) == .folder else {
                throw Diagnostic.manifest(.template, "\(folder): no templates folder here")
            }
            for name in try FileIO.names(in: folder) where name.hasSuffix(".mustache") {
                let path = (folder as NSString).appendingPathComponent(name)
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                    throw Diagnostic.manifest(.template, "\(path): cannot be read as UTF-8 text")
                }
                sources[String(name.dropLast(".mustache".count))] = (text, path)
            }
        }
        var templates: [String: Template] = [:]
        for (name, (text, origin)) in sources {
            templates[name] = try Template(name: origin == "built-in" ? "\(name).mustache (built-in)" : origin, source: text)
        }
        self.templates = templates
    }

    public func render(_ name: String, _ context: TemplateValue) throws -> String {
        guard let template = templates[name] else { throw Diagnostic.manifest(.template, "no template named '\(name)'") }
        return try template.render(context, partials: templates)
    }
}

/// The JSON printer of diagnostics, beside the text printer (``Diagnostic/report``, ``reportLines(for:)``):
/// which fields a diagnostic has in JSON, named and ordered once for every command that prints JSON.

extension Diagnostic {
    /// One field's value in a diagnostic's JSON object.
    public enum JSONField: Sendable, Equatable {
        case string(String)
        case strings([String])
    }

    /// The diagnostic as a JSON object, in this order: `severity` (`error` or `warning`), `code`
    /// (`domain.kind`), then when there is one: `file`, `places` (each as it reads in the line),
    /// `subject`, `message` and `hint`. A JSON writer (PlistKit's) writes the pairs in this order.
    public var jsonObject: [(key: String, value: JSONField)] {
        var object: [(key: String, value: JSONField)] = [("severity", .string(severity.rawValue)), ("code", .string(code.description))]
        if let file { object.append(("file", .string(file))) }
        if !places.isEmpty { object.append(("places", .strings(places.map(\.text)))) }
        if let subject { object.append(("subject", .string(subject))) }
        object.append(("message", .string(message)))
        if let hint { object.append(("hint", .string(hint))) }
        return object
    }
}

extension Diagnostics {
    /// Each diagnostic's ``Diagnostic/jsonObject``, in order.
    public var jsonObjects: [[(key: String, value: Diagnostic.JSONField)]] { items.map(\.jsonObject) }
}

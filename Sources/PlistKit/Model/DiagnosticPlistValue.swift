import SystemSupport

extension PlistValue {
    /// A diagnostic as the JSON printer lays it out (``Diagnostic/jsonObject``), as a dictionary a plist
    /// writer can put into a larger document (`adhocbuild verify --json`'s findings).
    public init(_ diagnostic: Diagnostic) {
        self = .dictionary(
            PlistDictionary(
                diagnostic.jsonObject.map { key, value in
                    switch value {
                    case .string(let string): (key, .string(string))
                    case .strings(let strings): (key, .array(strings.map(PlistValue.string)))
                    }
                }))
    }
}

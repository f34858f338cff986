/// One value of an old-style (OpenStep) plist together with the bytes it came from.
///
/// Keeping each value's byte range lets an editor change one value of a `project.pbxproj`
/// by replacing just those bytes, leaving every other byte of the file as it was.
public struct OpenStepNode: Sendable {
    public enum Kind: Sendable {
        /// A string; `quoted` tells whether it was written in quotes.
        case string(String, quoted: Bool)
        case data([UInt8])
        case array([OpenStepNode])
        case dictionary([(key: OpenStepNode, value: OpenStepNode)])
    }

    public var kind: Kind
    /// The bytes of the value in the source: for a quoted string including its quotes,
    /// for a container from its opening to its closing bracket.
    public var range: Range<Int>

    /// The value as a plist value (OpenStep has only strings, data, arrays and dictionaries).
    public var value: PlistValue {
        switch kind {
        case .string(let string, _): return .string(string)
        case .data(let bytes): return .data(.init(bytes))
        case .array(let items): return .array(items.map(\.value))
        case .dictionary(let pairs):
            var dict = PlistDictionary()
            for pair in pairs {
                if case .string(let key, _) = pair.key.kind { dict.append(key, pair.value.value) }
            }
            return .dictionary(dict)
        }
    }

    /// The node at `path`, or nil when any step is missing.
    public func node(at path: PlistKeyPath) -> OpenStepNode? {
        var current = self
        for component in path.components {
            switch current.kind {
            case .dictionary(let pairs):
                guard
                    let pair = pairs.last(where: {
                        if case .string(let key, _) = $0.key.kind { return key == component } else { return false }
                    })
                else { return nil }
                current = pair.value
            case .array(let items):
                guard let index = Int(component), items.indices.contains(index) else { return nil }
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }
}

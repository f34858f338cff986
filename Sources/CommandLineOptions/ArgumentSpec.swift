/// A positional argument, with the type its value must have.
public struct ArgumentSpec: Sendable {
    public var name: String
    public var help: String
    public var kind: ValueKind
    public var isOptional: Bool
    /// Takes every remaining argument (the last argument only).
    public var isVariadic: Bool

    public init(name: String, help: String, kind: ValueKind = .text, isOptional: Bool = false, isVariadic: Bool = false) {
        self.name = name
        self.help = help
        self.kind = kind
        self.isOptional = isOptional
        self.isVariadic = isVariadic
    }
}

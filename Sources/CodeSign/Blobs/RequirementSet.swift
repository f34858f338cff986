/// The requirement set of a signature (magic `0xfade0c01`): requirements by type, the designated
/// requirement (type 3) among them. Its digest is special slot 2 of the CodeDirectory.
public struct RequirementSet: Sendable, Equatable, CustomStringConvertible {
    /// Requirement types, as `codesign` names them.
    public enum Kind {
        public static let host: UInt32 = 1
        public static let guest: UInt32 = 2
        public static let designated: UInt32 = 3
        public static let library: UInt32 = 4
        public static let plugin: UInt32 = 5

        static func name(_ type: UInt32) -> String? {
            [host: "host", guest: "guest", designated: "designated", library: "library", plugin: "plugin"][type]
        }
    }

    public var requirements: [(type: UInt32, requirement: Requirement)]

    public init(_ requirements: [(type: UInt32, requirement: Requirement)]) {
        self.requirements = requirements
    }

    /// Parses the set in `bytes`.
    public init(bytes: [UInt8]) throws {
        let container = try SuperBlob(reading: ByteReader(bytes), expecting: BlobMagic.requirementSet, what: "requirement set")
        requirements = try container.entries.map { entry in
            (entry.type, try Requirement(bytes: entry.bytes))
        }
    }

    /// The designated requirement, if the set has one.
    public var designated: Requirement? { requirements.first { $0.type == Kind.designated }?.requirement }

    /// The blob's bytes.
    public func bytes() -> [UInt8] {
        SuperBlob(magic: BlobMagic.requirementSet, entries: requirements.map { .init(type: $0.type, bytes: $0.requirement.bytes()) })
            .bytes()
    }

    /// One line per requirement, `designated => …`, as `codesign -d -r-` prints the set.
    public var description: String {
        requirements.map { entry in
            let prefix = Kind.name(entry.type).map { "\($0) => " } ?? "/*unknown type*/ \(entry.type) => "
            return prefix + entry.requirement.description + "\n"
        }.joined()
    }

    public static func == (lhs: RequirementSet, rhs: RequirementSet) -> Bool {
        lhs.requirements.count == rhs.requirements.count
            && zip(lhs.requirements, rhs.requirements).allSatisfy { $0.type == $1.type && $0.requirement == $1.requirement }
    }
}

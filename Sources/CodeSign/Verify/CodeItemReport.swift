import PlistKit

/// How a code item is signed.
public enum CodeSignatureStatus: String, Sendable, Equatable {
    /// A CMS signature with a signer.
    case signed
    /// No CMS signature (or an empty one), or the ad-hoc flag: nothing says who signed it.
    case adhoc = "ad-hoc"
    /// No `LC_CODE_SIGNATURE` at all.
    case unsigned
    /// The executable or its signature could not be read (the problem says why).
    case unreadable
}

/// What kind of code item a path holds.
public enum CodeItemKind: String, Sendable, Equatable {
    case app, appex, framework, dylib, xctest, xpc, bundle
}

/// One CodeDirectory of one slice, as `codesign -d -v` describes it.
public struct CodeDirectorySummary: Sendable, Equatable {
    /// The slice's architecture (`arm64`).
    public var architecture: String
    public var hashType: HashType
    public var version: UInt32
    public var flags: UInt32
    /// The cdhash (20 bytes).
    public var cdhash: [UInt8]
    /// Whether it is the primary CodeDirectory (slot 0) rather than an alternate.
    public var isPrimary: Bool
}

/// The verification result of one code item: an app, an extension, a framework or a loose dylib.
public struct CodeItemReport: Sendable {
    /// The item's path as the user sees it (`Payload/Test.app/Frameworks/X.framework`).
    public var path: String
    public var kind: CodeItemKind
    public var status: CodeSignatureStatus
    /// The executable relative to the item (`Test`), or nil when the bundle names none.
    public var executable: String?
    /// The identifier in the primary CodeDirectory.
    public var identifier: String?
    public var teamID: String?
    /// `CFBundleIdentifier` from the bundle's Info.plist (nil for a loose dylib).
    public var bundleIdentifier: String?
    /// Every CodeDirectory of every slice, primary first within each slice.
    public var codeDirectories: [CodeDirectorySummary]
    /// The entitlements the signature holds (XML blob, else DER), if any.
    public var entitlements: PlistValue?
    /// What the item's CodeResources seals, by path relative to the item: `files2` for a modern seal,
    /// `files` for an old one (empty for a loose dylib).
    public var sealedFiles: [String: ResourceSeal]
    /// What breaks the item's seal.
    public var problems: [CodeSealProblem]
    /// What iOS's installer would refuse though the seal holds (the profile, entitlements, expiry, anchor).
    public var installProblems: [CodeSealProblem]

    /// How many files the item's CodeResources seals (0 for a loose dylib).
    public var sealedFileCount: Int { sealedFiles.count }
    /// The primary CodeDirectory's cdhash of the first slice.
    public var cdhash: [UInt8]? { codeDirectories.first(where: \.isPrimary)?.cdhash }
    /// The hash types of the first slice's CodeDirectories.
    public var hashTypes: [HashType] {
        let first = codeDirectories.first?.architecture
        return codeDirectories.filter { $0.architecture == first }.map(\.hashType)
    }
    public var codeDirectoryVersion: UInt32? { codeDirectories.first(where: \.isPrimary)?.version }
    public var flags: UInt32? { codeDirectories.first(where: \.isPrimary)?.flags }
    /// True when nothing breaks the item's seal.
    public var sealIsValid: Bool { problems.isEmpty }
    /// True when the seal holds and nothing stops iOS from installing the item.
    public var isInstallable: Bool { problems.isEmpty && installProblems.isEmpty }
}

/// The result of verifying an app and everything nested in it.
public struct CodeSealReport: Sendable {
    /// The path the user gave.
    public var input: String
    /// Every code item, inside out: nested code before the bundle that holds it; the app last.
    public var items: [CodeItemReport]

    /// Every problem that breaks a seal, of every item, in item order.
    public var problems: [CodeSealProblem] { items.flatMap(\.problems) }
    /// Every install problem of every item, in item order.
    public var installProblems: [CodeSealProblem] { items.flatMap(\.installProblems) }
    /// True when every seal holds.
    public var isValid: Bool { items.allSatisfy(\.sealIsValid) }
    /// True when every seal holds and nothing stops iOS from installing the app.
    public var isInstallable: Bool { items.allSatisfy(\.isInstallable) }
}

/// The content each special slot of a CodeDirectory hashes, as Apple's signer fills them: slot 1 the
/// Info.plist file, 2 the requirement set blob, 3 the `_CodeSignature/CodeResources` file, 4 the
/// payload of the application-specific blob (Xcode 7-era signatures), 5 the XML entitlements blob,
/// 7 the DER entitlements blob. A slot without content is written as a hash of zeros.
public struct SpecialSlotContents: Sendable, Equatable {
    public var infoPlist: [UInt8]?
    public var requirements: [UInt8]?
    public var codeResources: [UInt8]?
    /// The application-specific slot: the bytes after the 8-byte header of the slot-4 blob.
    public var application: [UInt8]?
    public var entitlements: [UInt8]?
    public var derEntitlements: [UInt8]?

    public init(
        infoPlist: [UInt8]? = nil, requirements: [UInt8]? = nil, codeResources: [UInt8]? = nil, application: [UInt8]? = nil,
        entitlements: [UInt8]? = nil, derEntitlements: [UInt8]? = nil
    ) {
        self.infoPlist = infoPlist
        self.requirements = requirements
        self.codeResources = codeResources
        self.application = application
        self.entitlements = entitlements
        self.derEntitlements = derEntitlements
    }

    /// The content of special slot `slot` (1 is Info.plist), or nil when it has none.
    public func content(_ slot: Int) -> [UInt8]? {
        switch slot {
        case 1: return infoPlist
        case 2: return requirements
        case 3: return codeResources
        case 4: return application
        case 5: return entitlements
        case 7: return derEntitlements
        default: return nil
        }
    }

    /// How many special slots the directory holds: up to the highest slot with content, as Apple writes it.
    public var slotCount: Int { (1...7).last { content($0) != nil } ?? 0 }
}

/// One attribute of a rendition key, by CoreUI's number (`kCRTheme…` identifiers).
public struct RenditionAttribute: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// CoreUI's number for the attribute.
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    // CoreUI's attribute identifiers, by number.
    public static let element = Self(rawValue: 1)
    public static let part = Self(rawValue: 2)
    public static let size = Self(rawValue: 3)
    public static let direction = Self(rawValue: 4)
    public static let value = Self(rawValue: 6)
    public static let appearance = Self(rawValue: 7)
    public static let dimension1 = Self(rawValue: 8)
    public static let dimension2 = Self(rawValue: 9)
    public static let state = Self(rawValue: 10)
    public static let layer = Self(rawValue: 11)
    public static let scale = Self(rawValue: 12)
    public static let localization = Self(rawValue: 13)
    public static let presentationState = Self(rawValue: 14)
    public static let idiom = Self(rawValue: 15)
    public static let subtype = Self(rawValue: 16)
    /// The name identifier: what a facet (an asset name) and its renditions share.
    public static let identifier = Self(rawValue: 17)
    public static let previousValue = Self(rawValue: 18)
    public static let previousState = Self(rawValue: 19)
    public static let horizontalSizeClass = Self(rawValue: 20)
    public static let verticalSizeClass = Self(rawValue: 21)
    public static let memoryClass = Self(rawValue: 22)
    public static let graphicsClass = Self(rawValue: 23)
    public static let displayGamut = Self(rawValue: 24)
    public static let deploymentTarget = Self(rawValue: 25)

    static let names: [Int: String] = [
        0: "look", 1: "element", 2: "part", 3: "size", 4: "direction", 5: "placeholder", 6: "value", 7: "appearance",
        8: "dimension1", 9: "dimension2", 10: "state", 11: "layer", 12: "scale", 13: "localization",
        14: "presentationState", 15: "idiom", 16: "subtype", 17: "identifier", 18: "previousValue", 19: "previousState",
        20: "horizontalSizeClass", 21: "verticalSizeClass", 22: "memoryClass", 23: "graphicsClass", 24: "displayGamut",
        25: "deploymentTarget", 26: "glyphWeight", 27: "glyphSize"
    ]

    /// CoreUI's name without its `kCRTheme…Name` wrapping: `scale`, `idiom`, `identifier`, …
    public var description: String { Self.names[rawValue] ?? "attribute\(rawValue)" }
}

/// A rendition key: a value for each attribute of the catalog's ``KeyFormat``.
public struct RenditionKey: Hashable, Sendable, CustomStringConvertible {
    /// The attribute values in key-format order (missing ones are 0).
    public var values: [RenditionAttribute: Int]

    /// A key with these attribute values (zeros, like absent attributes, are left out).
    public init(values: [RenditionAttribute: Int]) {
        self.values = values.filter { $0.value != 0 }
    }

    /// Reads a key stored as one little-endian 16-bit value per key-format attribute.
    init(_ view: ByteView, format: KeyFormat) throws {
        var values: [RenditionAttribute: Int] = [:]
        for (index, attribute) in format.attributes.enumerated() where index * 2 + 2 <= view.count {
            values[attribute] = try view.u16le(index * 2, "key attribute \(attribute)")
        }
        self.init(values: values)
    }

    /// The value of one attribute (0 when absent).
    public subscript(attribute: RenditionAttribute) -> Int { values[attribute] ?? 0 }

    /// `attribute=value` pairs in attribute order, e.g. `scale=2 idiom=1 identifier=6849`.
    public var description: String {
        values.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }
}

/// The device family a rendition is for (the `idiom` attribute).
public enum Idiom: Int, Sendable, CaseIterable {
    case universal = 0
    case phone, pad, tv, car, watch, marketing

    /// The name Xcode's asset catalogs use (`universal`, `iphone`, `ipad`, `ios-marketing`, …).
    public var name: String {
        switch self {
        case .universal: return "universal"
        case .phone: return "iphone"
        case .pad: return "ipad"
        case .tv: return "tv"
        case .car: return "car"
        case .watch: return "watch"
        case .marketing: return "ios-marketing"
        }
    }
}

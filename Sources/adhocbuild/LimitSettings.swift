import CommandLineOptions
import Foundation
import IPAKit
import PlistKit

/// The `ADHOCBUILD_MAX_*` environment variables that raise (or lower) the readers' limits for users with
/// legitimately huge files. Read once at start-up, before any file is opened, into one value that the
/// commands pass to every read (``current``).
enum LimitSettings {
    /// One variable: its name, what it limits, the built-in value, and how to apply a value.
    struct Setting: Sendable {
        var name: String
        var summary: String
        var builtIn: Int
        var isSize: Bool
        var apply: @Sendable (inout ReaderLimits, Int) -> Void
    }

    /// The limits the environment asks for (the built-in ones where it sets none), read on first use;
    /// a usage error when a variable's value is not valid.
    static let fromEnvironment = Result { try limits(from: environment()) }

    /// The limits the commands read with: ``fromEnvironment``, whose error the start-up reports
    /// before any command runs.
    static var current: ReaderLimits {
        get throws { try fromEnvironment.get() }
    }

    static let plist = PlistLimits()
    /// The deepest plist nesting ADHOCBUILD_MAX_PLIST_DEPTH may allow: every reader and writer of
    /// every format recurses once per level, and this many levels fit the command thread's stack
    /// (``CommandThread/stackSize``) with room to spare in a debug build.
    static let maxPlistDepthCeiling = 50_000
    static let ipa = ZipArchiveReader.Limits()

    static let settings: [Setting] = [
        Setting(
            name: "ADHOCBUILD_MAX_PLIST_DEPTH", summary: "deepest plist nesting", builtIn: plist.maxDepth,
            isSize: false
        ) { $0.plist.maxDepth = $1 },
        Setting(
            name: "ADHOCBUILD_MAX_PLIST_VALUES", summary: "most values a plist may hold", builtIn: plist.maxValues,
            isSize: false
        ) { $0.plist.maxValues = $1 },
        Setting(
            name: "ADHOCBUILD_MAX_PLIST_SIZE", summary: "largest plist file read", builtIn: plist.maxInputSize,
            isSize: true
        ) { $0.plist.maxInputSize = $1 },
        Setting(
            name: "ADHOCBUILD_MAX_IPA_ENTRIES", summary: "most entries in an ipa", builtIn: ipa.maxEntries,
            isSize: false
        ) { $0.archive.maxEntries = $1 },
        Setting(
            name: "ADHOCBUILD_MAX_IPA_SIZE", summary: "largest total unzipped size of an ipa", builtIn: Int(ipa.maxTotalSize),
            isSize: true
        ) { $0.archive.maxTotalSize = Int64($1) },
        Setting(
            name: "ADHOCBUILD_MAX_IPA_ENTRY_SIZE", summary: "largest ipa entry read into memory",
            builtIn: Int(ipa.maxEntryReadSize), isSize: true
        ) { $0.archive.maxEntryReadSize = Int64($1) },
        Setting(
            name: "ADHOCBUILD_MAX_IPA_RATIO", summary: "largest compression ratio of a big entry", builtIn: Int(ipa.maxRatio),
            isSize: false
        ) { $0.archive.maxRatio = Int64($1) }
    ]

    /// The rows of the root help's Environment table, with the built-in values.
    static var helpRows: [(String, String)] {
        settings.map { setting in
            let builtIn = setting.isSize ? sizeText(setting.builtIn) : String(setting.builtIn)
            return (setting.name, "Limit: \(setting.summary) (default \(builtIn))" + (setting.isSize ? "; takes K, M or G." : "."))
        }
    }

    /// A size with the largest K/M/G suffix that divides it (`1G`, `512M`).
    static func sizeText(_ bytes: Int) -> String {
        for (suffix, shift) in [("G", 30), ("M", 20), ("K", 10)] where bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(suffix)"
        }
        return String(bytes)
    }

    /// The values of just these variables, read with `getenv`: at start-up that is cheaper than
    /// `ProcessInfo.environment`, which copies every variable into a dictionary.
    static func environment() -> [String: String] {
        var values: [String: String] = [:]
        for setting in settings {
            if let value = getenv(setting.name) { values[setting.name] = String(cString: value) }
        }
        return values
    }

    /// The built-in limits with the variables set in `environment` applied; a value that is not a
    /// positive whole number (with an optional K/M/G suffix for sizes) is a usage error naming the variable.
    static func limits(from environment: [String: String]) throws -> ReaderLimits {
        var limits = ReaderLimits()
        for setting in settings {
            guard let text = environment[setting.name], !text.isEmpty else { continue }
            guard let value = parse(text, allowSuffix: setting.isSize), value > 0 else {
                let expected = setting.isSize ? "a positive size such as 2000000, 512M or 4G" : "a positive whole number"
                throw UsageError(message: "\(setting.name): '\(text)' is not \(expected)", commandPath: ["adhocbuild"])
            }
            if setting.name == "ADHOCBUILD_MAX_PLIST_DEPTH", value > maxPlistDepthCeiling {
                throw UsageError(
                    message: "\(setting.name): '\(text)' is more than \(maxPlistDepthCeiling), the deepest nesting adhocbuild can read",
                    commandPath: ["adhocbuild"])
            }
            setting.apply(&limits, value)
        }
        return limits
    }

    static func parse(_ text: String, allowSuffix: Bool) -> Int? {
        var digits = Substring(text)
        var multiplier = 1
        if allowSuffix, let last = digits.last, let shift = ["K": 10, "M": 20, "G": 30, "T": 40][last.uppercased()] {
            multiplier = 1 << shift
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
            let number = Int(digits)
        else { return nil }
        let (product, overflow) = number.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : product
    }
}

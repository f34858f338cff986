import Foundation
import PlistKit

extension CodeItemReport {
    /// The item as a dictionary, for JSON output and inspection.
    public func plist() -> PlistDictionary {
        var dict = PlistDictionary()
        dict["path"] = .string(path)
        dict["kind"] = .string(kind.rawValue)
        dict["status"] = .string(status.rawValue)
        if let executable { dict["executable"] = .string(executable) }
        if let identifier { dict["identifier"] = .string(identifier) }
        if let teamID { dict["teamIdentifier"] = .string(teamID) }
        if let bundleIdentifier { dict["bundleIdentifier"] = .string(bundleIdentifier) }
        if let cdhash { dict["cdhash"] = .string(cdhash.hexString) }
        dict["hashTypes"] = .array(hashTypes.map { .string($0.description) })
        if let codeDirectoryVersion { dict["codeDirectoryVersion"] = .string("0x" + String(codeDirectoryVersion, radix: 16)) }
        if let flags { dict["flags"] = .string("0x" + String(flags, radix: 16)) }
        dict["codeDirectories"] = .array(
            codeDirectories.map { directory in
                var entry = PlistDictionary()
                entry["architecture"] = .string(directory.architecture)
                entry["hashType"] = .string(directory.hashType.description)
                entry["primary"] = .bool(directory.isPrimary)
                entry["cdhash"] = .string(directory.cdhash.hexString)
                return .dictionary(entry)
            })
        if let entitlements { dict["entitlements"] = entitlements }
        dict["sealedFiles"] = .integer(PlistInteger(Int64(sealedFileCount)))
        dict["sealValid"] = .bool(sealIsValid)
        dict["problems"] = .array(problems.map { .string($0.description) })
        dict["installable"] = .bool(isInstallable)
        dict["installProblems"] = .array(installProblems.map { .string($0.description) })
        return dict
    }

    /// One line for people: status, identifier, team, cdhash, hash types, CodeDirectory version and sealed files.
    public var summaryLine: String {
        var parts = [status.rawValue]
        if let identifier { parts.append("identifier \(identifier)") }
        if let teamID { parts.append("team \(teamID)") }
        if let cdhash { parts.append("cdhash \(cdhash.hexString)") }
        if !hashTypes.isEmpty { parts.append(hashTypes.map(\.description).joined(separator: "+")) }
        if let codeDirectoryVersion { parts.append("CodeDirectory 0x\(String(codeDirectoryVersion, radix: 16))") }
        if kind != .dylib { parts.append("\(sealedFileCount) sealed file\(sealedFileCount == 1 ? "" : "s")") }
        return "\(path): \(parts.joined(separator: ", ")): \(sealIsValid ? "seal valid" : "seal broken")"
    }
}

extension CodeSealReport {
    /// The report as a dictionary, for JSON output (CI).
    public func plist() -> PlistDictionary {
        var dict = PlistDictionary()
        dict["input"] = .string(input)
        dict["valid"] = .bool(isValid)
        dict["installable"] = .bool(isInstallable)
        dict["items"] = .array(items.map { .dictionary($0.plist()) })
        dict["problems"] = .array(problems.map { .string($0.description) })
        dict["installProblems"] = .array(installProblems.map { .string($0.description) })
        return dict
    }
}

import CodeSign
import Foundation
import PlistKit

/// The embedded signature of an app bundle folder's executable (its first slice), read without the
/// executable's code: only its header, load commands and signature are read, so a 60 MB executable
/// costs a few reads. What the seal guard and the build time look at.
enum AppExecutableSignature {
    /// What the executable carries.
    enum Found {
        /// No Info.plist naming an executable, no Mach-O file, or no signature in it.
        case none
        /// The executable or its signature cannot be read.
        case unreadable
        case signature(EmbeddedSignature)
    }

    /// The signature of the executable that `app`'s Info.plist (read with `limits`) names.
    static func of(app: String, limits: PlistLimits = .default) -> Found {
        guard let info = try? PropertyList(contentsOf: (app as NSString).appendingPathComponent("Info.plist"), limits: limits).value,
            let name = info["CFBundleExecutable"]?.stringValue
        else { return .none }
        let executable = (app as NSString).appendingPathComponent(name)
        guard let handle = FileHandle(forReadingAtPath: executable) else { return .unreadable }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), let prefix = try? readBytes(handle, at: 0, count: 4) else { return .unreadable }
        guard MachOFile.looksLikeMachO(prefix) else { return .none }
        do {
            let machO = try MachOFile(size: Int(size)) { offset, count in try readBytes(handle, at: offset, count: count) }
            guard let slice = machO.slices.first, let signature = try slice.embeddedSignature() else { return .none }
            return .signature(signature)
        } catch {
            return .unreadable
        }
    }

    /// `count` bytes of `handle` from `offset` (fewer at the end of the file).
    static func readBytes(_ handle: FileHandle, at offset: Int, count: Int) throws -> [UInt8] {
        try handle.seek(toOffset: UInt64(offset))
        return [UInt8](try handle.read(upToCount: count) ?? Data())
    }

    /// The time the CMS of `signature` says it was signed (its signingTime attribute); nil for an
    /// ad-hoc signature or one without the attribute.
    static func signingTime(_ signature: EmbeddedSignature) -> Date? {
        guard let cms = signature.signature, !cms.isEmpty else { return nil }
        return (try? CodeSignatureCMS(cms: cms.cms, content: signature.blob(SignatureSlot.codeDirectory) ?? []))?.signingTime
    }
}

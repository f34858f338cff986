import Foundation
import PlistKit
import SystemSupport

/// The parts of ``CodeItemVerifier/verify()``: the item's Info.plist and executable, its executable's
/// seal, and what the seal and signature say of the item.
extension CodeItemVerifier {
    /// A problem found with the item before its bundle is named: what kind, the file relative to the
    /// item (nil for the item as a whole), the line.
    typealias ItemProblem = (kind: CodeSignProblem, file: String?, message: String)

    /// The Info.plist of a bundle (and its bytes, which a signature's special slot hashes) and the
    /// executable; a loose dylib is its own executable.
    struct ItemFiles {
        var infoData: Data?
        var executable: String
        /// The executable's key in the reader.
        var executableKey: String
    }

    /// The item's Info.plist and executable (from `early` when its check is used), setting
    /// `bundleIdentifier`; nil when a bundle names no executable, with the problems found.
    func itemFiles(early: EarlyExecutableVerifier?, bundleIdentifier: inout String?, problems: inout [ItemProblem]) -> ItemFiles? {
        if let early {
            bundleIdentifier = early.info["CFBundleIdentifier"]?.stringValue
            return ItemFiles(infoData: early.infoData, executable: early.executable, executableKey: location.key + "/" + early.executable)
        }
        guard location.isBundle else {
            return ItemFiles(infoData: nil, executable: (location.key as NSString).lastPathComponent, executableKey: location.key)
        }
        var info: PlistDictionary?
        var infoData: Data?
        // iOS bundles are shallow; a macOS-style framework keeps it in Resources (through Versions/Current).
        let infoKey = [location.key + "/Info.plist", location.key + "/Resources/Info.plist"].first { reader.file($0) != nil }
        do {
            let data = try reader.read(infoKey ?? location.key + "/Resources/Info.plist")
            infoData = data
            info = try PropertyList(data: data, limits: reader.limits).value.dictionaryValue
            if info == nil { problems.append((.bundleInvalid, "Info.plist", "is not a dictionary")) }
        } catch let error as Diagnostic where error.is(CodeSignProblem.self) && infoKey == nil {
            _ = error
            problems.append((.bundleInvalid, "Info.plist", "missing (a bundle needs one)"))
        } catch {
            problems.append((.malformed, "Info.plist", "\(CodeItemVerifier.text(error))"))
        }
        bundleIdentifier = info?["CFBundleIdentifier"]?.stringValue
        // Without CFBundleExecutable, a framework's executable is named after it.
        let implicit = ((location.key as NSString).lastPathComponent as NSString).deletingPathExtension
        let declared = info?["CFBundleExecutable"]?.stringValue
        guard let name = declared ?? (reader.file(location.key + "/" + implicit) != nil ? implicit : nil), !name.isEmpty else {
            if info != nil { problems.append((.bundleInvalid, "Info.plist", "names no CFBundleExecutable")) }
            return nil
        }
        return ItemFiles(infoData: infoData, executable: name, executableKey: location.key + "/" + name)
    }

    /// The executable's seal, its pages queued on `pagePool`; nil with a problem when it is missing or
    /// not a Mach-O file (then `status` says unsigned).
    func executableReport(
        _ files: ItemFiles, codeResourcesData: Data?, pagePool: WorkerPool, status: inout CodeSignatureStatus,
        problems: inout [ItemProblem]
    ) -> ExecutableReport? {
        guard reader.file(files.executableKey) != nil else {
            problems.append((.bundleInvalid, files.executable, "missing"))
            return nil
        }
        do {
            // Mapped, not read: only headers and signatures are copied; pages are hashed in place.
            let map = try reader.map(files.executableKey)
            guard MachOFile.looksLikeMachO(map.read(0, 4)) else {
                throw CodeItemVerifier.NotMachO()
            }
            let machO = try MachOFile(size: map.bytes.count, read: map.read)
            return ExecutableReport(
                machO: machO, map: map, executable: files.executable,
                files: SpecialSlotFiles(infoPlist: files.infoData, codeResources: codeResourcesData, isBundle: location.isBundle),
                pool: pagePool)
        } catch is CodeItemVerifier.NotMachO {
            status = .unsigned
            problems.append((.signatureMissing, files.executable, "code object is not signed at all (not a Mach-O file)"))
        } catch {
            problems.append((.malformed, files.executable, "not a Mach-O file that can be read: \(CodeItemVerifier.text(error))"))
        }
        return nil
    }

    /// What the executable's seal says of the item, its pages hashed: status, code directories,
    /// identifier, team and entitlements into `item`; the seal's problems, an identifier that is not the
    /// bundle id, and each slice's trust findings (seal and install) into `problems` and `installProblems`.
    func report(
        _ seal: ExecutableReport, executable: String, resourcesSealed: Bool, into item: inout CodeItemReport,
        problems: inout [ItemProblem], installProblems: inout [TrustFinding]
    ) {
        item.status = seal.status
        item.codeDirectories = seal.codeDirectories
        problems += CodeItemVerifier.firstPerSubject(seal.problems).map { ($0.kind, $0.file, $0.message) }
        if location.isBundle && !resourcesSealed && (seal.status == .signed || seal.status == .adhoc) {
            problems.append((.specialSlotUnsealed, "_CodeSignature/CodeResources", "missing: the bundle's resources are not sealed"))
        }
        guard let signature = seal.primarySignature, let directory = signature.codeDirectory else { return }
        item.identifier = directory.identifier
        item.teamID = directory.teamID
        item.entitlements = try? (signature.entitlements ?? signature.derEntitlements)?.entitlements(limits: reader.limits)
        if let bundleID = item.bundleIdentifier, directory.identifier != bundleID {
            problems.append(
                (.identifierMismatch, executable, "the signature's identifier '\(directory.identifier)' is not the bundle id '\(bundleID)'")
            )
        }
        guard item.status == .signed, let trustHook else { return }
        let profileKey = location.key + "/embedded.mobileprovision"
        let profile = location.isBundle && reader.file(profileKey) != nil ? try? reader.read(profileKey) : nil
        let findings = seal.signatures.map { slice in
            trustHook(
                SignatureTrustContext(
                    bundlePath: displayPath, signature: slice.signature, architecture: slice.architecture,
                    profileData: profile.map { [UInt8]($0) }, bundleIdentifier: item.bundleIdentifier))
        }
        let architectures = seal.signatures.map(\.architecture)
        problems += CodeItemVerifier.perSlice(findings.map(\.seal), architectures: architectures).map { ($0.kind, nil, $0.message) }
        installProblems = CodeItemVerifier.perSlice(findings.map(\.install), architectures: architectures)
    }
}

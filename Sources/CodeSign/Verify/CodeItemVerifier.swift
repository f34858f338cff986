import Foundation
import PlistKit
import SystemSupport

/// Verifies one code item: its Info.plist and executable, the executable's signature, the item's
/// sealed resources (with the nested items' cdhashes), its identifier, and the trust hook.
struct CodeItemVerifier {
    let location: CodeItemLocation
    let displayPath: String
    let reader: BundleFileReader
    let locator: CodeItemLocator
    /// The cdhashes of each nested item, by its path relative to this item.
    let nestedCdhashes: [String: [[UInt8]]]
    let threads: Int
    let trustHook: SignatureTrustHook?
    /// The item's executable, already read and queued for hashing (the app on disk), if it was.
    var early: EarlyExecutableVerifier? = nil

    /// How many page jobs a page pool takes at once: all of them (they hold no buffers).
    static let pageJobCapacity = 1 << 16

    /// The early check, when the index agrees with what it read (the same files, of the same kinds).
    private var usableEarlyCheck: EarlyExecutableVerifier? {
        guard let early, location.isBundle else { return nil }
        let isPlainFile = { (key: String) in reader.file(key).map { !$0.isSymlink && !$0.isDirectory } ?? false }
        guard isPlainFile(location.key + "/Info.plist"), isPlainFile(location.key + "/" + early.executable),
            (reader.file(location.key + "/_CodeSignature/CodeResources") != nil) == (early.codeResourcesData != nil)
        else { return nil }
        return early
    }

    func verify() -> CodeItemReport {
        let early = usableEarlyCheck
        // Jobs of an early check that is not used still finish before the item is reported.
        defer { if early == nil { try? self.early?.pagePool.wait() } }
        var item = CodeItemReport(
            path: displayPath, kind: location.kind, status: .unreadable, executable: nil, identifier: nil, teamID: nil,
            bundleIdentifier: nil, codeDirectories: [], entitlements: nil, sealedFiles: [:], problems: [], installProblems: [])
        var problems: [(kind: CodeSignProblem, file: String?, message: String)] = []
        var installProblems: [TrustFinding] = []
        // The Info.plist and executable of a bundle; a loose dylib is its own executable.
        var info: PlistDictionary?
        var infoData: Data?
        let executable: String
        let executableKey: String
        if let early {
            infoData = early.infoData
            info = early.info
            item.bundleIdentifier = early.info["CFBundleIdentifier"]?.stringValue
            executable = early.executable
            executableKey = location.key + "/" + early.executable
        } else if location.isBundle {
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
            item.bundleIdentifier = info?["CFBundleIdentifier"]?.stringValue
            // Without CFBundleExecutable, a framework's executable is named after it.
            let implicit = ((location.key as NSString).lastPathComponent as NSString).deletingPathExtension
            let declared = info?["CFBundleExecutable"]?.stringValue
            guard let name = declared ?? (reader.file(location.key + "/" + implicit) != nil ? implicit : nil), !name.isEmpty else {
                if info != nil { problems.append((.bundleInvalid, "Info.plist", "names no CFBundleExecutable")) }
                item.problems = problems.map {
                    CodeSealProblem(bundle: displayPath, file: $0.file, kind: $0.kind, message: $0.message)
                }
                return item
            }
            executable = name
            executableKey = location.key + "/" + name
        } else {
            executable = (location.key as NSString).lastPathComponent
            executableKey = location.key
        }
        item.executable = executable

        let pool = WorkerPool(label: "adhocbuild.codesign.verify", capacity: threads * 2)
        let resourceProblems = Locked<[SealFinding]>([])
        // Code pages hold no buffers (they are hashed in place from the map), so all their jobs are
        // queued at once on a pool of their own: they run while this thread parses CodeResources.
        let pagePool = early?.pagePool ?? WorkerPool(label: "adhocbuild.codesign.pages", capacity: CodeItemVerifier.pageJobCapacity)
        var codeResourcesData: Data?
        var codeResourcesError: (kind: CodeSignProblem, message: String)?
        if let early {
            codeResourcesData = early.codeResourcesData
        } else if location.isBundle, reader.file(location.key + "/_CodeSignature/CodeResources") != nil {
            do {
                codeResourcesData = try reader.read(location.key + "/_CodeSignature/CodeResources")
            } catch {
                codeResourcesError = (.unreadable, CodeItemVerifier.text(error))
            }
        }

        // The executable: one in memory at a time; its pages are hashed on the pool.
        var seal: ExecutableReport?
        if let early {
            seal = early.seal
        } else if reader.file(executableKey) == nil {
            problems.append((.bundleInvalid, executable, "missing"))
        } else {
            do {
                // Mapped, not read: only headers and signatures are copied; pages are hashed in place.
                let map = try reader.map(executableKey)
                guard MachOFile.looksLikeMachO(map.read(0, 4)) else {
                    throw CodeItemVerifier.NotMachO()
                }
                let machO = try MachOFile(size: map.bytes.count, read: map.read)
                seal = ExecutableReport(
                    machO: machO, map: map, executable: executable,
                    files: SpecialSlotFiles(infoPlist: infoData, codeResources: codeResourcesData, isBundle: location.isBundle),
                    pool: pagePool)
            } catch is CodeItemVerifier.NotMachO {
                item.status = .unsigned
                problems.append((.signatureMissing, executable, "code object is not signed at all (not a Mach-O file)"))
            } catch {
                problems.append((.malformed, executable, "not a Mach-O file that can be read: \(CodeItemVerifier.text(error))"))
            }
        }
        var resourceCheck: ResourceSealVerifier?
        if let data = codeResourcesData {
            do {
                let resources = try reader.codeResources(data)
                let files = locator.filesUnder(location.key).filter { $0.path != executable && !$0.path.hasPrefix("_CodeSignature/") }
                resourceCheck = ResourceSealVerifier(
                    resources: resources, bundleKey: location.key, files: files, nestedCdhashes: nestedCdhashes, reader: reader)
            } catch {
                codeResourcesError = (.malformed, CodeItemVerifier.text(error))
            }
        }
        if let codeResourcesError {
            problems.append((codeResourcesError.kind, "_CodeSignature/CodeResources", codeResourcesError.message))
        }
        if let resourceCheck {
            item.sealedFiles = resourceCheck.seals
            // Found without hashing: reported after the executable's problems, with the hashed files' ones.
            let found = resourceCheck.submit(to: pool, problems: resourceProblems)
            resourceProblems.withLock { $0 += found }
        }
        for jobs in [pagePool, pool] {
            do {
                try jobs.wait()
            } catch {
                problems.append((.unreadable, nil, CodeItemVerifier.text(error)))
            }
        }
        if var seal {
            seal.collectPageProblems(executable: executable)
            item.status = seal.status
            item.codeDirectories = seal.codeDirectories
            problems += CodeItemVerifier.firstPerSubject(seal.problems).map { ($0.kind, $0.file, $0.message) }
            if location.isBundle && codeResourcesData == nil && (seal.status == .signed || seal.status == .adhoc) {
                problems.append((.specialSlotUnsealed, "_CodeSignature/CodeResources", "missing: the bundle's resources are not sealed"))
            }
            if let signature = seal.primarySignature, let directory = signature.codeDirectory {
                item.identifier = directory.identifier
                item.teamID = directory.teamID
                item.entitlements = try? (signature.entitlements ?? signature.derEntitlements)?.entitlements(limits: reader.limits)
                if let bundleID = item.bundleIdentifier, directory.identifier != bundleID {
                    problems.append(
                        (
                            .identifierMismatch, executable,
                            "the signature's identifier '\(directory.identifier)' is not the bundle id '\(bundleID)'"
                        ))
                }
                if item.status == .signed, let trustHook {
                    let profileKey = location.key + "/embedded.mobileprovision"
                    let profile = location.isBundle && reader.file(profileKey) != nil ? try? reader.read(profileKey) : nil
                    let findings = seal.signatures.map { slice in
                        trustHook(
                            SignatureTrustContext(
                                bundlePath: displayPath, signature: slice.signature, architecture: slice.architecture,
                                profileData: profile.map { [UInt8]($0) }, bundleIdentifier: item.bundleIdentifier))
                    }
                    let architectures = seal.signatures.map(\.architecture)
                    problems += CodeItemVerifier.perSlice(findings.map(\.seal), architectures: architectures).map {
                        ($0.kind, nil, $0.message)
                    }
                    installProblems = CodeItemVerifier.perSlice(findings.map(\.install), architectures: architectures)
                }
            }
        }
        problems += resourceProblems.value.sorted { $0.file < $1.file }.map { ($0.kind, $0.file, $0.message) }
        item.problems = problems.map { CodeSealProblem(bundle: displayPath, file: $0.file, kind: $0.kind, message: $0.message) }
        item.installProblems = installProblems.map {
            CodeSealProblem(bundle: displayPath, file: nil, kind: $0.kind, message: $0.message)
        }
        return item
    }

    /// The lines of every slice's findings: a line every slice has once, as it is; a line only some
    /// slices have once for each, named `slice arm64: …`.
    static func perSlice(_ findings: [[TrustFinding]], architectures: [String]) -> [TrustFinding] {
        var order: [TrustFinding] = []
        var slicesWith: [String: [Int]] = [:]
        for (index, lines) in findings.enumerated() {
            for line in lines {
                let key = line.kind.rawValue + "\u{0}" + line.message
                if slicesWith[key] == nil { order.append(line) }
                if slicesWith[key]?.last != index { slicesWith[key, default: []].append(index) }
            }
        }
        return order.flatMap { line -> [TrustFinding] in
            let slices = slicesWith[line.kind.rawValue + "\u{0}" + line.message] ?? []
            guard slices.count < findings.count else { return [line] }
            return slices.map { TrustFinding(line.kind, "slice \(architectures[$0]): \(line.message)") }
        }
    }

    /// One problem per file and subject: a slot that fails in every CodeDirectory is named once.
    static func firstPerSubject(_ problems: [SealFinding]) -> [SealFinding] {
        var seen = Set<String>()
        return problems.filter { problem in
            let subject = problem.message.components(separatedBy: " (sealed ").first ?? problem.message
            return seen.insert(problem.file + "\u{0}" + subject).inserted
        }
    }

    /// An executable that is no Mach-O file (a script): it cannot carry an embedded signature.
    struct NotMachO: Error {}

    /// One line for any error.
    static func text(_ error: any Error) -> String {
        (error as? Diagnostic)?.description ?? "\(error)"
    }
}

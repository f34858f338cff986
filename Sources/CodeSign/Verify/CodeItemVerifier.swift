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
        var problems: [ItemProblem] = []
        var installProblems: [TrustFinding] = []
        guard let files = itemFiles(early: early, bundleIdentifier: &item.bundleIdentifier, problems: &problems) else {
            item.problems = problems.map { CodeSealProblem(bundle: displayPath, file: $0.file, kind: $0.kind, message: $0.message) }
            return item
        }
        let executable = files.executable
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
        } else {
            seal = executableReport(
                files, codeResourcesData: codeResourcesData, pagePool: pagePool, status: &item.status, problems: &problems)
        }
        var resourceCheck: ResourceSealVerifier?
        if let data = codeResourcesData {
            do {
                let resources = try reader.codeResources(data)
                let files = locator.filesUnder(location.key).filter { $0.path != executable && !$0.path.hasPrefix("_CodeSignature/") }
                resourceCheck = ResourceSealVerifier(
                    resources: resources, bundleKey: location.key, executable: executable, files: files, nestedCdhashes: nestedCdhashes,
                    reader: reader)
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
            report(
                seal, executable: executable, resourcesSealed: codeResourcesData != nil, into: &item, problems: &problems,
                installProblems: &installProblems)
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

import CodeSign
import Foundation
import IPAKit
import SystemSupport

/// Changes the app inside an `.ipa` (or a `.zip` holding one `.app`) into a new ipa, all or nothing.
///
/// The archive is unpacked into a temporary folder beside the output (every file hashed on the way),
/// changed there, signed when asked (reading again only what the change rewrote), and packaged to
/// the output with every unchanged entry carried as its compressed bytes. The output (which may be
/// the input itself) is replaced only when all of it has worked; a dry run writes nothing. Paths in
/// the work folder are named as entries of the output in what was written (`out.ipa:
/// Payload/A.app/Info.plist`), and as entries of the input in errors, which are about what it holds.
public struct ArchivedAppChange {
    public var input: String
    public var output: String
    public var dryRun = false
    public var signing: BundleSigningOptions?
    /// The limits the archive is unpacked and the signing files read with.
    public var limits: ReaderLimits = .standard

    public init(input: String, output: String?) throws {
        guard let output else {
            throw Diagnostic.build(
                "is an archive: name the new ipa with --output OUT.ipa (the input's own path replaces it)", file: input)
        }
        guard output.lowercased().hasSuffix(".ipa") else {
            throw Diagnostic.build("is where the changed app goes, so it must be named something.ipa", file: output)
        }
        let folder = FileIO.split(output).folder
        guard FileIO.kind(of: folder) == .folder else {
            throw Diagnostic.build("cannot be written: its folder does not exist", file: output)
        }
        self.input = input
        self.output = output
    }

    /// The change of `input` into `output` for a command with `--dry-run` and a signing request: the
    /// request's identity and profiles read now (not for a dry run, which signs nothing).
    init(input: String, output: String?, dryRun: Bool, signing request: SigningRequest?, limits: ReaderLimits) throws {
        try self.init(input: input, output: output)
        self.dryRun = dryRun
        self.limits = limits
        signing = dryRun ? nil : try request?.options(limits: limits.plist)
    }

    /// Whether `path` is an archive this type changes (an `.ipa` or `.zip` file).
    public static func isArchive(_ path: String) -> Bool { UnpackedApp.isArchive(path) }

    /// Unpacks the input, runs `change` on the app's folder, signs it when asked and writes the new
    /// ipa. Returns what `change` returned, what was signed, and how to name a work-folder path.
    public func run<T>(_ change: (_ app: String) throws -> T) throws -> (
        value: T, signed: BundleSigningReport?, naming: @Sendable (String) -> String
    ) {
        // What killed runs left beside the output goes first; this run's work folder goes at the end.
        FileIO.removeStaleTemporaries(in: FileIO.split(output).folder)
        let work = FileIO.temporaryPath(for: output)
        defer { try? FileManager.default.removeItem(atPath: work) }
        // What was written is named in the output; a problem found in the unpacked app is the input's.
        let written = PathRelocation(copy: work, original: .archive(output))
        let naming: @Sendable (String) -> String = { written.text($0) }
        do {
            let unpacked = try UnpackedApp.unpack(input, into: work, limits: limits.archive, leaving: true)
            let value = try change(unpacked.app)
            var signed: BundleSigningReport?
            if let signing, !dryRun {
                signed = try BundleSigner.sign(bundle: unpacked.app, options: signing, digests: unpacked.digests)
            }
            if !dryRun {
                _ = try IPAPackager(options: unpacked.packaging(IPAPackager.Options())).package(unpacked.app, to: output)
            }
            return (value, signed, naming)
        } catch {
            throw PathRelocation(copy: work, original: .archive(input)).relocate(error)
        }
    }
}

import CommandLineOptions
import Foundation
import IPAKit
import SystemSupport

/// `adhocbuild package`: `.app` or `.xcarchive` into `.ipa`.
enum PackageCommand {
    static var command: CommandSpec {
        CommandSpec(
            name: "package", abstract: "Package a built .app or .xcarchive into an .ipa.",
            discussion: """
                Payload/<Name>.app (and SwiftSupport/ from an archive), framed as Apple's tools frame an ipa: sizes \
                and CRCs in local headers, symlinks stored as links, Unix modes, UTF-8 names, DOS times in UTC. \
                Entries are deflated on all cores. The ipa is written under a temporary name, reopened and checked, \
                then renamed into place.
                """,
            options: Options.self
        ) { given, parsed in
            var options = IPAPackager.Options()
            options.level = given.level
            options.reproducible = given.reproducible
            if let epoch = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"] {
                guard let seconds = Int64(epoch) else {
                    throw parsed.usageError("SOURCE_DATE_EPOCH must be a number of seconds, not '\(epoch)'")
                }
                options.sourceDateEpoch = seconds
                options.reproducible = true
            }
            options.profile = given.profile
            options.profileLimits = try LimitSettings.current.plist
            options.verify = !given.noVerify
            let quiet = given.quiet
            let bar = ProgressBar(enabled: !quiet && isatty(STDERR_FILENO) != 0)
            options.progress = { done, total in bar.update(done, total) }
            let report = try IPAPackager(options: options).package(given.app, to: given.output)
            bar.finish()
            for warning in report.warnings { Console.warning(warning.report) }
            if !quiet {
                let ratio = report.uncompressedBytes > 0 ? Double(report.compressedBytes) / Double(report.uncompressedBytes) * 100 : 100
                // With the ipa on standard output, the summary goes beside it, on standard error.
                let summary =
                    "\(report.output == "-" ? "standard output" : report.output): \(report.entries) entries, "
                    + "\(ByteCount.format(report.uncompressedBytes)) -> \(ByteCount.format(report.compressedBytes)) "
                    + "(\(String(format: "%.0f", ratio))% of the app's size)\n"
                if report.wentToStandardOutput { Console.err(summary) } else { Console.out(summary) }
            }
            return 0
        }
    }

    struct Options: CommandOptions {
        var app = ""
        var output = ""
        var profile: String?
        var level = IPAPackager.Options.defaultLevel
        var reproducible = false
        var noVerify = false
        var quiet = false
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.app, "APP", help: "A .app bundle or an .xcarchive."),
                .option(\.output, "-o", "--output", name: "OUT.ipa", kind: .path, help: "Where to write the ipa.", required: true),
                .option(
                    \.profile, "--profile", name: "FILE", kind: .path, help: "Embed this provisioning profile as embedded.mobileprovision."),
                .integer(\.level, "--level", name: "0-9", range: 0...9, help: "Deflate level; 0 stores."),
                .flag(
                    \.reproducible, "--reproducible",
                    help: "Fixed times (SOURCE_DATE_EPOCH) and modes: the same input gives the same bytes."),
                .flag(\.noVerify, "--no-verify", help: "Do not reopen the ipa to check every entry."),
                .flag(\.quiet, "-q", "--quiet", help: "Print nothing but errors.")
            ]
        }
    }
}

/// A one-line progress bar on standard error, redrawn at most once per percent (the packager may
/// report progress from its worker threads).
final class ProgressBar: Sendable {
    private let enabled: Bool
    private let lastPercent = Locked(-1)

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ done: Int64, _ total: Int64) {
        guard enabled, total > 0 else { return }
        let percent = Int(done * 100 / total)
        let changed = lastPercent.withLock { last in
            defer { last = percent }
            return last != percent
        }
        guard changed else { return }
        let width = 30
        let filled = width * percent / 100
        Console.err("\r[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] \(percent)%")
    }

    func finish() { if enabled && lastPercent.value >= 0 { Console.err("\r\u{1B}[K") } }
}

enum ByteCount {
    static func format(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1024 * 1024 { return String(format: "%.1f KB", Double(bytes) / 1024) }
        return String(format: "%.1f MB", Double(bytes) / 1_048_576)
    }
}

import CodeSign
import CommandLineOptions
import Foundation
import PlistKit

/// `adhocbuild codesign …`: code signatures.
enum CodeSignCommands {
    static var command: CommandSpec {
        CommandSpec(name: "codesign", abstract: "Read and verify the code signatures of an app.", subcommands: [verify])
    }

    static var verify: CommandSpec {
        CommandSpec(
            name: "verify",
            abstract: "Check that the seal of an app and of all its nested code holds, as Apple's codesign verifies it (deep, strict).",
            discussion: """
                For the app and every nested code item (frameworks, loose dylibs, extensions, Watch apps, App Clips), inside \
                out: every code page of every slice against every CodeDirectory; the Info.plist, requirements, CodeResources \
                and entitlements slots; every file sealed in _CodeSignature/CodeResources (modified, missing, added); nested \
                code by its own signature and the outer seal; the signature's identifier against the bundle id. Unsigned \
                code is a problem; ad-hoc signatures are reported as such. One line per code item on standard output, one \
                line per problem on standard error; exit 1 when any seal is broken. The CMS signature and the signer are \
                not checked yet.
                """,
            arguments: [ArgumentSpec(name: "APP|IPA|XCARCHIVE", help: "An .ipa, .app or .xcarchive.")],
            options: [.flag("--json", help: "Print the result as JSON (items, status, cdhash, entitlements, problems).")],
            run: { parsed in
                let input = parsed.positionals[0]
                let report = try CodeSealVerifier().verify(path: input)
                if parsed.flag("json") {
                    Console.out(try PropertyList.encode(.dictionary(report.plist()), format: .json))
                } else {
                    for item in report.items { Console.out(item.summaryLine + "\n") }
                    for problem in report.problems { Console.error("\(input): \(problem)") }
                    let count = report.problems.count
                    let items = report.items.count
                    Console.out(
                        "\(input): "
                            + (report.isValid
                                ? "seal valid (\(items) code item\(items == 1 ? "" : "s"))"
                                : "seal broken (\(count) problem\(count == 1 ? "" : "s") in \(report.items.filter { !$0.sealIsValid }.count) of \(items) code items)")
                            + "\n")
                }
                return report.isValid ? 0 : 1
            })
    }
}

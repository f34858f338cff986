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
                code by its own signature and the outer seal; the signature's identifier against the bundle id; the CMS \
                signature over the CodeDirectory with its messageDigest and cdhash attributes; the signer certificate \
                against the embedded profile's certificates and team; the entitlements against the profile's; the \
                profile's own signature. Signatures are judged at their signing time; an expired certificate or profile \
                is a warning. Unsigned code is a problem; ad-hoc signatures are reported as such. One line per code item \
                on standard output, one line per problem on standard error; exit 1 when any seal is broken.
                """,
            arguments: [ArgumentSpec(name: "APP|IPA|XCARCHIVE", help: "An .ipa, .app or .xcarchive.")],
            options: [
                .value(
                    "--anchor", name: "apple", kind: .choice(["apple"], noun: "anchor"),
                    help: "Also require the signer's and the profile's chains to end in Apple Root CA (pinned)."),
                .flag("--json", help: "Print the result as JSON (items, status, cdhash, entitlements, problems).")
            ],
            run: { parsed in
                let input = parsed.positionals[0]
                let verification = CodeSignatureVerification(anchorApple: parsed.value("anchor") == "apple")
                let result = try verification.verify(path: input)
                let report = result.report
                if parsed.flag("json") {
                    var dict = report.plist()
                    dict["warnings"] = .array(result.notes.map { .string($0) })
                    Console.out(try PropertyList.encode(.dictionary(dict), format: .json))
                } else {
                    for note in result.notes { Console.warning("\(input): \(note)") }
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

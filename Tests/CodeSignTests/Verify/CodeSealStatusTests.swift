import CodeSign
import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// Unsigned and ad-hoc code is reported as such; the trust hook is called per signed item.
@Suite struct CodeSealStatusTests {
    @Test func theUnsignedExampleAppIsReportedUnsigned() throws {
        let app = Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut/ShoutOut.app").path
        let report = try CodeSealVerifier().verify(path: app)
        #expect(report.items.map(\.status) == [.unsigned, .unsigned])
        // Real (unsigned) Mach-O files since make-app.py writes them, so not "not a Mach-O file".
        #expect(
            report.problems.map(\.description) == [
                "ShoutOut.app/Frameworks/ShoutKit.framework: ShoutKit: code object is not signed at all",
                "ShoutOut.app: ShoutOut: code object is not signed at all"
            ])
    }

    /// A tiny app made from scripts/fuzz_codesign_seeds.py's ad-hoc signed Mach-O (empty CMS): a thin
    /// executable and a fat64 loose dylib.
    @Test func adhocCodeIsReportedAdhocAndItsSealChecked() throws {
        try withTemporaryFolder { folder in
            let seeds = folder.path("seeds")
            let script = Fixtures.packageRoot.appendingPathComponent("scripts/fuzz_codesign_seeds.py").path
            let made = try ProcessResult.run("/usr/bin/env", ["python3", script, "made", seeds])
            guard made.status == 0 else { throw SetupFailure("fuzz_codesign_seeds.py made failed: \(made.stderrText)") }
            let app = folder.path("Tiny.app")
            try FileManager.default.createDirectory(atPath: app + "/Frameworks", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: seeds + "/macho-made-thin", toPath: app + "/Tiny")
            try FileManager.default.copyItem(atPath: seeds + "/macho-made-fat64", toPath: app + "/Frameworks/libtiny.dylib")
            var info = PlistDictionary()
            info["CFBundleExecutable"] = .string("Tiny")
            info["CFBundleIdentifier"] = .string("com.example.fuzz")
            _ = try folder.write("Tiny.app/Info.plist", try PropertyList.encode(.dictionary(info), format: .xml))

            let report = try CodeSealVerifier().verify(path: app)
            #expect(report.items.map(\.path) == ["Tiny.app/Frameworks/libtiny.dylib", "Tiny.app"])
            #expect(report.items.map(\.status) == [.adhoc, .adhoc])
            #expect(report.items[0].problems == [])
            #expect(report.items[0].identifier == "com.example.fuzz")
            // The hand-made signature binds no Info.plist and seals no resources.
            #expect(
                report.problems.map(\.description) == [
                    "Tiny.app: Info.plist: not sealed by the SHA-256 CodeDirectory",
                    "Tiny.app: _CodeSignature/CodeResources: missing: the bundle's resources are not sealed"
                ])

            // A page of the loose dylib's second slice.
            var dylib = try Data(contentsOf: URL(fileURLWithPath: app + "/Frameworks/libtiny.dylib"))
            let machO = try MachOFile(data: dylib)
            let last = try #require(machO.slices.last)
            dylib[Int(last.fileOffset) + 40] ^= 1
            try dylib.write(to: URL(fileURLWithPath: app + "/Frameworks/libtiny.dylib"))
            let broken = try CodeSealVerifier().verify(path: app).items[0].problems.map(\.description)
            #expect(broken.count == 1)
            #expect(
                broken.first?.hasPrefix(
                    "Tiny.app/Frameworks/libtiny.dylib: libtiny.dylib: \(machO.slices.count > 1 ? "slice \(last.cpu): " : "")code page 0 of "
                ) == true)
        }
    }
}

/// The trust hook sees each signed slice of each item once, with its path, bundle id and profile.
@Suite(Fixtures.enabled) struct SignatureTrustHookTests {
    @Test func theHookIsCalledPerSignedBundleAndItsProblemsAreTheBundles() throws {
        let seen = Locked<[String]>([])
        let verifier = CodeSealVerifier { context in
            seen.withLock {
                $0.append(
                    "\(context.bundlePath) \(context.architecture) \(context.bundleIdentifier ?? "-") \(context.profileData?.count ?? 0)")
            }
            return context.bundlePath.hasSuffix(".appex")
                ? SignatureTrustProblems(
                    seal: [TrustFinding(.signatureUntrusted, "signer is not in the profile")],
                    install: [TrustFinding(.profileExpired, "profile expired")])
                : SignatureTrustProblems()
        }
        let report = try verifier.verify(path: Fixtures.url("ipa", "app_info_embedded_enterprise-appex.ipa").path)
        #expect(
            seen.value == [
                "Payload/Demo.app/PlugIns/Notification.appex arm64 com.icyleaf.test.Demo.Notification 9481",
                "Payload/Demo.app arm64 com.icyleaf.test.Demo 9427"
            ])
        #expect(report.problems.map(\.description) == ["Payload/Demo.app/PlugIns/Notification.appex: signer is not in the profile"])
        #expect(report.installProblems.map(\.description) == ["Payload/Demo.app/PlugIns/Notification.appex: profile expired"])
        #expect(report.problems.map(\.kind) == [.signatureUntrusted] && report.installProblems.map(\.kind) == [.profileExpired])
        #expect(!report.isInstallable)
    }
}

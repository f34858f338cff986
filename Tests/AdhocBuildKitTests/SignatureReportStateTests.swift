import AdhocBuildKit
import Testing

@testable import CodeSign

/// What `inspect`, `verify` and `release` call an app's signature: the outer verdict reflects every
/// nested code item, and an intact seal the installer would refuse is told apart from a broken one.
@Suite struct SignatureReportStateTests {
    static func item(_ path: String, _ status: CodeSignatureStatus, seal: [String] = [], install: [String] = []) -> CodeItemReport {
        CodeItemReport(
            path: path, kind: path.hasSuffix(".framework") ? .framework : .app, status: status, executable: nil, identifier: nil,
            teamID: nil, bundleIdentifier: nil, codeDirectories: [], entitlements: nil, sealedFiles: [:],
            problems: seal.map { CodeSealProblem(bundle: path, file: nil, kind: .signatureUntrusted, message: $0) },
            installProblems: install.map { CodeSealProblem(bundle: path, file: nil, kind: .installRefused, message: $0) })
    }

    static func state(_ items: [CodeItemReport]) -> SignatureReport.State {
        SignatureReport(result: CodeSignatureVerifier.Report(report: CodeSealReport(input: "A.ipa", items: items))).state
    }

    @Test func anAdHocAppAroundABrokenFrameworkIsBroken() {
        let framework = Self.item("A.app/Frameworks/F.framework", .signed, seal: ["F: code page 0 of 3 modified"])
        #expect(Self.state([framework, Self.item("A.app", .adhoc)]) == .broken)
        #expect(Self.state([Self.item("A.app/Frameworks/F.framework", .signed), Self.item("A.app", .adhoc)]) == .adHoc)
    }

    @Test func anIntactSealThatTheInstallerRefusesIsUninstallableNotBroken() {
        let app = Self.item("A.app", .signed, install: ["entitlement application-identifier is T.*, the profile's is T.com.a"])
        #expect(Self.state([app]) == .uninstallable)
        let check = SignatureReport(result: CodeSignatureVerifier.Report(report: CodeSealReport(input: "A.ipa", items: [app])))
        #expect(check.stopsInstall)
        #expect(
            check.summary.hasPrefix("the seal of A.app holds, but iOS will refuse to install it (A.app: entitlement application-identifier")
        )
        #expect(Self.state([Self.item("A.app", .signed)]) == .valid)
        #expect(Self.state([Self.item("A.app", .signed, seal: ["x"], install: ["y"])]) == .broken)
    }

    @Test func unsignedCodeIsNotCalledBrokenForBeingUnsigned() {
        let unsigned = Self.item("A.app", .unsigned, seal: ["A: code object is not signed at all"])
        #expect(Self.state([unsigned]) == .unsigned)
    }
}

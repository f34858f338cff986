import CodeSign
import Foundation
import FuzzDriver

/// Any signature blob: each reader that accepts the bytes must write a blob that reads back the same.
runFuzzer { data in
    let bytes = [UInt8](data)
    if let signature = try? EmbeddedSignature(bytes: bytes) {
        precondition((try? EmbeddedSignature(bytes: signature.bytes()))?.bytes() == signature.bytes(), "super blob round trip")
        // The CMS through libcrypto, checked against the CodeDirectories, and the trust checks with and without a profile.
        _ = CodeSignatureCMSVerifier.verify(signature)
        _ = SignatureTrustVerifier.verify(
            bundlePath: "fuzz", signature: signature, profileData: nil, bundleIdentifier: "fuzz", anchorApple: true, now: Date())
    }
    if let directory = try? CodeDirectory(bytes: bytes) {
        precondition((try? CodeDirectory(bytes: directory.bytes())) == directory, "CodeDirectory round trip")
        _ = directory.cdhash()
    }
    if let requirements = try? RequirementSet(bytes: bytes) {
        precondition((try? RequirementSet(bytes: requirements.bytes())) == requirements, "requirement set round trip")
        _ = requirements.description
    }
    if let requirement = try? Requirement(bytes: bytes) {
        precondition((try? Requirement(bytes: requirement.bytes())) == requirement, "requirement round trip")
        _ = requirement.description
    }
    if let entitlements = try? EntitlementsBlob(bytes: bytes), let value = try? entitlements.entitlements(), entitlements.format == .der {
        precondition((try? EntitlementsBlob.der(value).entitlements()) == value, "DER entitlements round trip")
    }
    if let cms = try? CMSBlob(bytes: bytes) {
        _ = try? CodeSignatureCMS(cms: cms.cms, content: bytes)
    }
    if let resources = try? CodeResources(data: data) {
        _ = try? resources.data()
        for rules in [resources.rules, resources.rules2] {
            _ = (try? ResourceRuleMatcher(rules))?.verdict(for: "Base.lproj/Main.storyboardc/Info.plist")
        }
    }
}

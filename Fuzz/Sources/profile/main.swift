import CodeSign
import Foundation
import FuzzDriver
import IPAKit

runFuzzer { data in
    if let profile = try? ProvisioningProfile(data: data) {
        _ = profile.summary()
        _ = profile.kind
    }
    // The same bytes through libcrypto's CMS reader, the signature check and the certificate reader.
    if let signed = try? ProfileSignature(bytes: [UInt8](data)) {
        _ = signed.signer?.sha256Hex
        _ = signed.developerCertificates.map { try? CertificateInfo(der: $0) }
    }
}

import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import ObjectStorage

/// Credentials and region are found where the AWS CLI finds them, in its order, and the secret
/// never shows in a description or an error.
struct AWSConfigurationTests {
    static let secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYSECRETVALUE"
    static let token = "FwoGZXIvYXdzEBYaDTOKENSECRETVALUE=="

    @Test func environmentKeysComeFirst() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            _ = try folder.write("credentials", "[default]\naws_access_key_id = AKIAFILE\naws_secret_access_key = filesecret\n")
            let configuration = AWSConfiguration(environment: [
                "HOME": folder.url.path, "AWS_SHARED_CREDENTIALS_FILE": folder.path("credentials"), "AWS_ACCESS_KEY_ID": "AKIAENVIRONMENT",
                "AWS_SECRET_ACCESS_KEY": Self.secret, "AWS_SESSION_TOKEN": Self.token, "AWS_PROFILE": "default"
            ])
            let credentials = try configuration.credentials()
            #expect(credentials.accessKeyID == "AKIAENVIRONMENT")
            #expect(credentials.secretAccessKey.reveal() == Self.secret)
            #expect(credentials.sessionToken?.reveal() == Self.token)
            #expect(credentials.source == "environment")
        }
    }

    @Test func profileFromTheSharedCredentialsFile() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            _ = try folder.create(
                ".aws/credentials",
                Data(
                    """
                    # team keys
                    [default]
                    aws_access_key_id = AKIADEFAULT
                    aws_secret_access_key = defaultsecret

                    [ci]
                    AWS_ACCESS_KEY_ID=AKIACI
                    aws_secret_access_key : \(Self.secret)
                    aws_session_token = \(Self.token)
                    s3 =
                        max_concurrent_requests = 20
                    """.utf8))
            _ = try folder.create(".aws/config", Data("[profile ci]\nregion = eu-central-1\n[default]\nregion = us-west-2\n".utf8))
            let byProfile = AWSConfiguration(environment: ["HOME": folder.url.path, "AWS_PROFILE": "ci"])
            let credentials = try byProfile.credentials()
            #expect(credentials.accessKeyID == "AKIACI")
            #expect(credentials.secretAccessKey.reveal() == Self.secret)
            #expect(credentials.sessionToken?.reveal() == Self.token)
            #expect(credentials.source == "profile 'ci' in \(folder.url.path)/.aws/credentials")
            #expect(try byProfile.region() == "eu-central-1")

            let byDefaultProfile = AWSConfiguration(environment: ["HOME": folder.url.path, "AWS_DEFAULT_PROFILE": "ci"])
            #expect(try byDefaultProfile.credentials().accessKeyID == "AKIACI")
            let plain = AWSConfiguration(environment: ["HOME": folder.url.path])
            #expect(try plain.credentials().accessKeyID == "AKIADEFAULT")
            #expect(try plain.region() == "us-west-2")
            let regionVariables = AWSConfiguration(environment: ["HOME": folder.url.path, "AWS_DEFAULT_REGION": "ap-south-1"])
            #expect(try regionVariables.region() == "ap-south-1")
            let both = AWSConfiguration(environment: [
                "HOME": folder.url.path, "AWS_REGION": "sa-east-1", "AWS_DEFAULT_REGION": "ap-south-1"
            ])
            #expect(try both.region() == "sa-east-1")
        }
    }

    @Test func credentialsInTheConfigFileAndAnotherCredentialsPath() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let config = try folder.write("config", "[profile build]\naws_access_key_id = AKIACONFIG\naws_secret_access_key = s\n")
            let environment = ["HOME": folder.url.path, "AWS_CONFIG_FILE": config, "AWS_PROFILE": "build"]
            #expect(try AWSConfiguration(environment: environment).credentials().accessKeyID == "AKIACONFIG")
            let other = try folder.write("other", "[build]\naws_access_key_id = AKIAOTHER\naws_secret_access_key = s\n")
            let withFile = environment.merging(["AWS_SHARED_CREDENTIALS_FILE": other]) { $1 }
            #expect(try AWSConfiguration(environment: withFile).credentials().accessKeyID == "AKIAOTHER")
        }
    }

    @Test func missingOrPartialCredentialsSayWhatIsMissing() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let home = ["HOME": folder.url.path]
            let none = expectDiagnostic(ObjectStorageProblem.self) { try AWSConfiguration(environment: home).credentials() }
            #expect(none?.code == .storage(.credentials))
            #expect(none?.description.contains("AWS_ACCESS_KEY_ID is not set") == true)
            let onlyKey = expectDiagnostic(ObjectStorageProblem.self) {
                try AWSConfiguration(environment: home.merging(["AWS_ACCESS_KEY_ID": "AKIA"]) { $1 }).credentials()
            }
            #expect(onlyKey?.message == "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not")
            let unknown = expectDiagnostic(ObjectStorageProblem.self) {
                try AWSConfiguration(environment: home.merging(["AWS_PROFILE": "nope"]) { $1 }).credentials()
            }
            #expect(unknown?.message.contains("profile 'nope' is in neither") == true)
            _ = try folder.create(
                ".aws/credentials", Data("[ci]\naws_access_key_id = AKIA\n[sso]\nrole_arn = arn:aws:iam::1:role/x\n".utf8))
            let noSecret = expectDiagnostic(ObjectStorageProblem.self) {
                try AWSConfiguration(environment: home.merging(["AWS_PROFILE": "ci"]) { $1 }).credentials()
            }
            #expect(
                noSecret?.description
                    == "\(folder.url.path)/.aws/credentials: profile 'ci' has aws_access_key_id but no aws_secret_access_key")
            let role = expectDiagnostic(ObjectStorageProblem.self) {
                try AWSConfiguration(environment: home.merging(["AWS_PROFILE": "sso"]) { $1 }).credentials()
            }
            #expect(role?.message == "profile 'sso' uses role_arn, which adhocbuild does not support")
        }
    }

    @Test func aMalformedLineIsNamedButNotQuoted() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let file = try folder.create(".aws/credentials", Data("[default]\naws_access_key_id = AKIA\n\(Self.secret)\n".utf8))
            let error = expectDiagnostic(ObjectStorageProblem.self) {
                try AWSConfiguration(environment: ["HOME": folder.url.path]).credentials()
            }
            #expect(error?.file == file)
            #expect(error?.lineAndColumn?.line == 3)
            #expect(error?.description.contains(Self.secret) == false)
        }
    }

    @Test func theSecretAndTokenNeverShowInDescriptions() throws {
        let credentials = AWSCredentials(
            accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: SecretText(Self.secret), sessionToken: SecretText(Self.token),
            source: "environment")
        var dumped = ""
        dump(credentials, to: &dumped)
        let texts = [
            String(describing: credentials), String(reflecting: credentials), "\(credentials)", dumped,
            String(describing: credentials.secretAccessKey), String(reflecting: credentials.sessionToken as Any),
            String(describing: Mirror(reflecting: credentials).children.map { $0 })
        ]
        for text in texts {
            #expect(!text.contains(Self.secret), "\(text)")
            #expect(!text.contains(Self.token), "\(text)")
            #expect(!text.contains("AKIAIOSFODNN7EXAMPLE"))
        }
        #expect(String(describing: credentials) == "access key ****************MPLE with a session token from environment")
    }
}

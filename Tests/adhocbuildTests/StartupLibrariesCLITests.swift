import Foundation
import TestSupport
import Testing

/// adhocbuild loads libcurl (and the 28 libraries it brings) only when a command sends a request:
/// the loader's own record (`LD_DEBUG=files`) of what each run loaded.
struct StartupLibrariesCLITests {
    /// The libraries the dynamic loader reports loading during one run of `arguments`.
    func loadedLibraries(_ arguments: [String], environment: [String: String] = [:]) throws -> (ProcessResult, [String]) {
        var environment = environment
        environment["LD_DEBUG"] = "files"
        let result = try AdhocBuildBinary.run(arguments, extraEnvironment: environment)
        let libraries = result.stderrText.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: "file=")?.upperBound, line.contains("generating link map") else { return nil }
            return String(line[start...].prefix { $0 != " " })
        }
        return (result, libraries)
    }

    @Test func aCommandThatSendsNoRequestStartsWithoutLibcurl() throws {
        let (result, libraries) = try loadedLibraries(["--version"])
        #expect(result.status == 0)
        #expect(libraries.contains("libcrypto.so.3"), "\(libraries)")
        #expect(!libraries.contains { $0.hasPrefix("libcurl") }, "\(libraries)")
    }

    @Test func theFirstRequestLoadsLibcurlAndItsAnswerIsReported() throws {
        let credentials = ["AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "us-east-1"]
        // Port 1 on loopback: nothing listens, so every attempt is refused (the GET is tried again
        // after each, 2 to 4 s in all) and the error is libcurl's.
        let (result, libraries) = try loadedLibraries(
            ["prune", "s3://bucket/ios/", "--keep", "1", "--endpoint", "http://127.0.0.1:1", "--allow-http"],
            environment: credentials)
        #expect(result.status == 1)
        #expect(libraries.contains("libcurl.so.4"), "\(libraries)")
        let errors = result.stderrText.split(separator: "\n").filter { $0.hasPrefix("error:") }
        #expect(errors.count == 1, "\(result.stderrText)")
        let error = try #require(errors.first)
        // libcurl's wording differs between versions ("Failed to connect to 127.0.0.1 port 1 after 0 ms:
        // Couldn't connect to server" in 7.88); the request and the port it could not reach do not.
        #expect(error.hasPrefix("error: GET http://127.0.0.1:1/bucket: "), "\(error)")
        #expect(error.contains("127.0.0.1 port 1"), "\(error)")
    }
}

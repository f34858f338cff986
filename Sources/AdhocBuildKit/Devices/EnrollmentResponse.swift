import Foundation

/// What the enrollment receiver answers to one HTTP request: the status, the redirect for a device it
/// stored, a short body, and the one line it logs.
public struct EnrollmentResponse: Sendable, Equatable {
    /// 301 (stored, or already registered), 400 (bad input), 405 (not a POST) or 500 (the store could not
    /// be written).
    public var status: Int
    /// The thank-you page with the device's name, model and UDID, for a 301.
    public var location: String?
    /// A plain text body: what was wrong, or where the thank-you page is.
    public var body: String
    /// One line for the server's log, without its end: `adhocbuild devices receive: <status> <what>`.
    public var logLine: String

    public init(status: Int, location: String? = nil, body: String, logLine: String) {
        self.status = status
        self.location = location
        self.body = body
        self.logLine = logLine
    }

    /// The status's reason phrase.
    public var reason: String {
        switch status {
        case 301: return "Moved Permanently"
        case 400: return "Bad Request"
        case 405: return "Method Not Allowed"
        default: return "Internal Server Error"
        }
    }

    /// The reply as a CGI program prints it: a `Status:` header always (without one, a web server turns a
    /// `Location` into a 302, which iOS does not follow), `Location` for a redirect, `Allow` for a 405, then
    /// the body.
    public var cgi: [UInt8] {
        var head = "Status: \(status) \(reason)\r\n"
        if let location { head += "Location: \(location)\r\n" }
        if status == 405 { head += "Allow: POST\r\n" }
        head += "Content-Type: text/plain; charset=utf-8\r\n\r\n"
        return Array((head + body + "\n").utf8)
    }
}

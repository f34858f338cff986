import CLibCurl
import Foundation
import SystemSupport

/// The state of one attempt on one libcurl easy handle: the body being sent, the headers and body
/// being received. libcurl's callbacks reach it through an unretained pointer, valid for the
/// duration of `curl_easy_perform`.
final class CurlTransfer {
    private let request: HTTPRequest
    private let maxMemoryBody: Int
    private var sent: Int64 = 0
    private var input: Int32 = -1
    private var output: Int32 = -1
    private(set) var status = 0
    private(set) var headers: [Header] = []
    private(set) var body = Data()
    /// Why a callback stopped the transfer (a file that cannot be read or written, a body too big).
    private(set) var failure: Diagnostic?

    init(_ request: HTTPRequest, maxMemoryBody: Int) {
        self.request = request
        self.maxMemoryBody = maxMemoryBody
    }

    deinit {
        if input >= 0 { close(input) }
        if output >= 0 { close(output) }
    }

    /// Opens the file to send, if any.
    func open() throws {
        guard case .file(let path, _, _) = request.body else { return }
        input = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else {
            throw Diagnostic.storage(.file, "cannot be read: \(String(cString: strerror(errno)))", subject: path)
        }
    }

    /// Fills `buffer` with the next bytes of the body (CURLOPT_READFUNCTION); 0 at the end.
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        let remaining = Int(min(Int64(capacity), request.body.length - sent))
        guard remaining > 0 else { return 0 }
        switch request.body {
        case .none: return 0
        case .data(let data):
            let start = data.startIndex + Int(sent)
            data.copyBytes(to: UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: UInt8.self), from: start..<(start + remaining))
            sent += Int64(remaining)
            return remaining
        case .file(let path, let offset, _):
            let count = pread(input, buffer, remaining, off_t(offset + sent))
            guard count > 0 else {
                let reason = count == 0 ? "ended before the \(request.body.length) bytes to send" : String(cString: strerror(errno))
                failure = Diagnostic.storage(.file, "cannot be read: \(reason)", subject: path)
                return Int(CURL_READFUNC_ABORT)
            }
            sent += Int64(count)
            return count
        }
    }

    /// Takes one header line (CURLOPT_HEADERFUNCTION); a status line starts a new set of headers
    /// (a `100 Continue` comes before the final answer).
    func header(_ buffer: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        let line = String(decoding: UnsafeRawBufferPointer(start: buffer, count: count), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            let parts = line.split(separator: " ")
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            headers = []
        } else if let colon = line.firstIndex(of: ":") {
            headers.append(
                Header(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return count
    }

    /// Takes body bytes (CURLOPT_WRITEFUNCTION): into the response file for a 2xx answer when one
    /// was asked for, else into memory up to the limit.
    func write(_ buffer: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        if case .file(let path) = request.responseBody, (200..<300).contains(status) {
            if output < 0 {
                output = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                guard output >= 0 else { return fail(path, "cannot be written: \(String(cString: strerror(errno)))") }
            }
            var done = 0
            while done < count {
                let written = Glibc.write(output, buffer + done, count - done)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return fail(path, "cannot be written: \(String(cString: strerror(errno)))") }
                done += written
            }
            return count
        }
        guard body.count + count <= maxMemoryBody else {
            failure = Diagnostic.storage(
                .malformedResponse, "the answer is larger than \(maxMemoryBody) bytes", subject: "\(request.method) \(request.redactedURL)")
            return 0
        }
        body.append(UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: count)
        return count
    }

    /// Finishes the response file of a 2xx answer: creates it when the body was empty, closes it
    /// (which reports a delayed write error).
    func finishOutput() throws {
        guard case .file(let path) = request.responseBody, (200..<300).contains(status) else { return }
        if output < 0 {
            output = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard output >= 0 else {
                throw Diagnostic.storage(.file, "cannot be written: \(String(cString: strerror(errno)))", subject: path)
            }
        }
        let descriptor = output
        output = -1
        guard close(descriptor) == 0 else {
            throw Diagnostic.storage(.file, "cannot be written: \(String(cString: strerror(errno)))", subject: path)
        }
    }

    private func fail(_ path: String, _ message: String) -> Int {
        failure = Diagnostic.storage(.file, message, subject: path)
        return 0
    }
}

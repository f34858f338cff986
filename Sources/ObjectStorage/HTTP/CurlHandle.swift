import CLibCurl
import Foundation
import SystemSupport

/// One libcurl easy handle, used by one request at a time (``HTTPClient`` keeps a pool of them);
/// its connections stay open between requests.
final class CurlHandle: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer

    /// `curl_global_init`, once per process, before any handle exists.
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    static func initializeLibrary() {
        precondition(initialized, "libcurl could not be initialised")
    }

    init() {
        Self.initializeLibrary()
        // curl_easy_init fails only when it cannot allocate.
        guard let handle = curl_easy_init() else { preconditionFailure("libcurl could not allocate a handle") }
        self.handle = handle
    }

    deinit { curl_easy_cleanup(handle) }

    func perform(_ request: HTTPRequest, options: HTTPClient.Options) throws -> HTTPClient.Outcome {
        curl_easy_reset(handle)
        let transfer = CurlTransfer(request, maxMemoryBody: options.maxMemoryBody)
        try transfer.open()
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        var extra = request.headers.map { "\($0.name): \($0.value)" }
        // No `Expect: 100-continue` round trip, and no form content type curl would add to a POST.
        extra.append("Expect:")
        if request.method == "POST" && !request.headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            extra.append("Content-Type:")
        }
        for line in extra { headerList = curl_slist_append(headerList, line) }

        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errors in
            set(CURLOPT_URL, request.url)
            set(CURLOPT_PROTOCOLS_STR, "http,https")
            set(CURLOPT_NOSIGNAL, 1)
            set(CURLOPT_FOLLOWLOCATION, 0)
            set(CURLOPT_CONNECTTIMEOUT_MS, Int(options.connectTimeout * 1000))
            set(CURLOPT_LOW_SPEED_LIMIT, 1)
            set(CURLOPT_LOW_SPEED_TIME, max(1, Int(options.stallTimeout)))
            _ = shim_curl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)
            _ = shim_curl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errors.baseAddress)
            _ = shim_curl_easy_setopt_callback(handle, CURLOPT_HEADERFUNCTION, curlHeader)
            _ = shim_curl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
            _ = shim_curl_easy_setopt_callback(handle, CURLOPT_WRITEFUNCTION, curlWrite)
            _ = shim_curl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
            setMethod(request)
            if request.method == "PUT" || request.method == "POST" {
                _ = shim_curl_easy_setopt_callback(handle, CURLOPT_READFUNCTION, curlRead)
                _ = shim_curl_easy_setopt_pointer(handle, CURLOPT_READDATA, context)
            }
            return curl_easy_perform(handle)
        }
        if let failure = transfer.failure { throw failure }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            let diagnostic = Diagnostic.storage(
                .transport, Self.scrub(reason, of: request.url), subject: "\(request.method) \(request.redactedURL)")
            if Self.retryable.contains(code) { return .unanswered(diagnostic) }
            throw diagnostic
        }
        try transfer.finishOutput()
        return .answered(HTTPResponse(status: transfer.status, headers: transfer.headers, body: transfer.body))
    }

    /// The failures another attempt may get past.
    private static let retryable: Set<UInt32> = [
        CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_OPERATION_TIMEDOUT, CURLE_SEND_ERROR, CURLE_RECV_ERROR,
        CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_SSL_CONNECT_ERROR
    ].map(\.rawValue).reduce(into: []) { $0.insert($1) }

    /// `text` without the URL's query, should libcurl ever quote it.
    static func scrub(_ text: String, of url: String) -> String {
        guard let start = url.firstIndex(where: { $0 == "?" }) else { return text }
        return text.replacingOccurrences(of: String(url[start...]), with: "?…")
    }

    private func setMethod(_ request: HTTPRequest) {
        switch request.method {
        case "GET": set(CURLOPT_HTTPGET, 1)
        case "HEAD": set(CURLOPT_NOBODY, 1)
        case "PUT":
            set(CURLOPT_UPLOAD, 1)
            _ = shim_curl_easy_setopt_offset(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(request.body.length))
        case "POST":
            set(CURLOPT_POST, 1)
            _ = shim_curl_easy_setopt_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.length))
        default: set(CURLOPT_CUSTOMREQUEST, request.method)
        }
    }

    private func set(_ option: CURLoption, _ value: Int) { _ = shim_curl_easy_setopt_long(handle, option, value) }
    private func set(_ option: CURLoption, _ value: String) { _ = shim_curl_easy_setopt_string(handle, option, value) }
}

extension Set where Element == UInt32 {
    func contains(_ code: CURLcode) -> Bool { contains(code.rawValue) }
}

private func transfer(_ context: UnsafeMutableRawPointer?) -> CurlTransfer {
    Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
}

private let curlHeader: shim_curl_data_callback = { buffer, size, count, context in
    transfer(context).header(buffer!, count: size * count)
}

private let curlWrite: shim_curl_data_callback = { buffer, size, count, context in
    transfer(context).write(buffer!, count: size * count)
}

private let curlRead: shim_curl_data_callback = { buffer, size, count, context in
    transfer(context).read(into: buffer!, capacity: size * count)
}
